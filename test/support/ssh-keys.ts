// The OpenSSH public keys made once with ssh-keygen for the tests (fixtures/ssh/, SPEC 27).
import { readFileSync } from 'node:fs';

export const fixtureKey = (file: string): string => readFileSync(new URL(`../../fixtures/ssh/${file}`, import.meta.url), 'utf8').trim();
