// SPEC 18: the token file is checked at most once a second and read again
// only when its mtime or size changed; a rotated file is used by the next
// call after the check, and a missing one is still CredentialsUnavailable.
import { expect } from 'chai';
import { rmSync, utimesSync } from 'node:fs';
import { kindOf } from '../../src/proxmox/classify.js';
import { TOKEN_CHECK_INTERVAL_MS, createTokenSource } from '../../src/proxmox/token-cache.js';
import type { TokenSource } from '../../src/proxmox/token-cache.js';
import { readToken } from '../../src/proxmox/token.js';
import { FakeClock } from '../fakes/clock.js';
import { rejection } from '../support/rejection.js';
import { TOKEN, TOKEN_ID, workspace } from './support.js';
import type { Workspace } from './support.js';

// The same length as TOKEN's secret: only the mtime tells the files apart.
const ROTATED = `${TOKEN_ID}=9d8c7b6a-5f4e-4d3c-2b1a-0f9e8d7c6b5a`;

describe('the API token kept between requests (SPEC 18)', () => {
  let ws: Workspace;
  let clock: FakeClock;
  let reads: number;
  let source: TokenSource;

  /** Rewrites the token file and gives it an mtime of its own, whatever the file system's granularity. */
  function rotate(value: string, mtimeSeconds: number): void {
    ws.writeToken(`${value}\n`);
    utimesSync(ws.tokenFile, mtimeSeconds, mtimeSeconds);
  }

  beforeEach(() => {
    ws = workspace();
    utimesSync(ws.tokenFile, 1_000_000, 1_000_000);
    clock = new FakeClock();
    reads = 0;
    source = createTokenSource(ws.tokenFile, {
      now: () => clock.now().getTime(),
      read: (file) => {
        reads += 1;
        return readToken(file);
      },
    });
  });
  afterEach(() => ws.remove());

  it('reads the file once while it stays unchanged, however many calls and checks', async () => {
    for (let i = 0; i < 5; i += 1) {
      expect(await source.token()).to.equal(TOKEN);
      clock.advance(TOKEN_CHECK_INTERVAL_MS / 2);
    }
    expect(reads).to.equal(1);
  });

  it('does not read a rotated file again within the check interval', async () => {
    await source.token();
    rotate(ROTATED, 2_000_000);
    clock.advance(TOKEN_CHECK_INTERVAL_MS - 1);
    expect(await source.token()).to.equal(TOKEN);
    expect(reads).to.equal(1);
  });

  it('uses a rotated file of the same size on the first call after the interval', async () => {
    await source.token();
    rotate(ROTATED, 2_000_000);
    clock.advance(TOKEN_CHECK_INTERVAL_MS);
    expect(await source.token()).to.equal(ROTATED);
    expect(reads).to.equal(2);
  });

  it('notices a change of size even when the mtime is the same', async () => {
    await source.token();
    rotate(`${ROTATED}0`, 1_000_000);
    clock.advance(TOKEN_CHECK_INTERVAL_MS);
    expect(await source.token()).to.equal(`${ROTATED}0`);
  });

  it('a file removed after it was read is CredentialsUnavailable at the next check, and read again once it is back', async () => {
    await source.token();
    rmSync(ws.tokenFile);
    clock.advance(TOKEN_CHECK_INTERVAL_MS);
    expect(kindOf(await rejection(source.token()))).to.equal('CredentialsUnavailable');
    rotate(TOKEN, 1_000_000);
    expect(await source.token()).to.equal(TOKEN);
  });
});
