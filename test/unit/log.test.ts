// SPEC 9: the logger writes JSON lines and redacts anything secret:
// Authorization headers, `PVEAPIToken=...` anywhere in a line, and token
// values read from files, in messages, objects and errors.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../../src/log.js';
import type { Logger } from '../../src/log.js';
import { readSecretFile } from '../../src/secrets/read.js';

function sinkLogger(level = 'debug'): { logger: Logger; text: () => string; lines: () => Record<string, unknown>[] } {
  const written: string[] = [];
  const logger = createLogger({ level, pretty: false, destination: { write: (line: string) => written.push(line) } });
  return {
    logger,
    text: () => written.join(''),
    lines: () => written.map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

describe('logging (SPEC 9)', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'pve-log-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('writes one JSON line per call with level, message and fields', () => {
    const { logger, lines } = sinkLogger();
    logger.info({ vmid: 199999 }, 'created');
    expect(lines()).to.have.length(1);
    expect(lines()[0]).to.include({ level: 30, msg: 'created', vmid: 199999, name: 'pve-provisioner' });
  });

  it('redacts Authorization headers in objects, whatever the nesting', () => {
    const secret = randomUUID();
    const { logger, text, lines } = sinkLogger();
    logger.info({ headers: { authorization: `PVEAPIToken=root@pam!x=${secret}` } }, 'request');
    logger.info({ request: { headers: { authorization: `Bearer ${secret}` } } }, 'request');
    logger.info({ headers: { Authorization: `Basic ${secret}` } }, 'request');
    expect(text()).to.not.contain(secret);
    expect((lines()[0]?.headers as Record<string, string>).authorization).to.equal('[REDACTED]');
  });

  it('redacts PVEAPIToken=... anywhere in a line', () => {
    const secret = randomUUID();
    const { logger, text } = sinkLogger();
    logger.warn(`curl -H 'Authorization: PVEAPIToken=ops@pve!ci=${secret}' https://pv1-1:8006`);
    logger.warn({ note: `sent PVEAPIToken=ops@pve!ci=${secret} to the node` }, 'odd');
    expect(text()).to.not.contain(secret);
    expect(text()).to.contain('PVEAPIToken=[REDACTED]');
  });

  it('redacts a token value read from a file, alone, in a message, an object and an error', async () => {
    const secret = randomUUID();
    const file = join(dir, 'token');
    writeFileSync(file, `ops@pve!ci=${secret}\n`);
    await readSecretFile(file);
    const { logger, text } = sinkLogger();
    logger.info(`the secret is ${secret}`);
    logger.info({ detail: { value: secret } }, 'object');
    logger.error({ err: new Error(`server said ${secret}`) }, 'failed');
    logger.error(new Error(`thrown with ops@pve!ci=${secret}`));
    expect(text()).to.not.contain(secret);
    expect(text().match(/\[REDACTED\]/g)?.length).to.be.at.least(4);
  });

  it('keeps the text around a secret and leaves ordinary values alone', async () => {
    const secret = randomUUID();
    const file = join(dir, 'other-token');
    writeFileSync(file, secret);
    await readSecretFile(file);
    const { logger, lines } = sinkLogger();
    logger.info({ vmid: 199999, name: 'proxy-a' }, `before ${secret} after`);
    expect(lines()[0]).to.include({ msg: 'before [REDACTED] after', vmid: 199999, name: 'proxy-a' });
  });

  it('redacts fields named token or password', () => {
    const { logger, lines } = sinkLogger();
    logger.info({ token: 'abc', user: { password: 'hunter2' } }, 'x');
    expect(lines()[0]).to.deep.include({ token: '[REDACTED]', user: { password: '[REDACTED]' } });
  });

  it('honours the level', () => {
    const { logger, lines } = sinkLogger('warn');
    logger.info('quiet');
    logger.warn('loud');
    expect(lines().map((line) => line.msg)).to.deep.equal(['loud']);
  });

  it('constructs in pretty mode', () => {
    const logger = createLogger({ level: 'silent', pretty: true });
    expect(logger.level).to.equal('silent');
    expect(logger.info).to.be.a('function');
  });
});
