// SPEC 27: the README's signature checks, in Node and in Python, run as
// written against a body the service signs: a valid delivery passes, a
// changed byte or another secret does not.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect } from 'chai';
import { deliveryHeaders } from '../../src/webhooks/send.js';

const README = join(import.meta.dirname, '..', '..', 'README.md');
const SECRET = 'readme-snippet-secret-42';
const BODY = '{"deliveryId":"vm.ready-create-web-1-1","event":"vm.ready","name":"web-1"}';

function block(language: string): string {
  const readme = readFileSync(README, 'utf8');
  const after = readme.slice(readme.indexOf('<!-- readme-webhook:'));
  const match = new RegExp('```' + language + '\\n([\\s\\S]*?)```').exec(after);
  if (!match?.[1]) throw new Error(`README has no ${language} webhook block`);
  return match[1];
}

type Verify = (raw: Buffer, header: string | undefined, secret: string) => boolean;

describe("the README's webhook signature checks (SPEC 27)", () => {
  let dir: string;
  const header = deliveryHeaders({ deliveryId: 'vm.ready-create-web-1-1', event: 'vm.ready', body: BODY }, SECRET)['x-signature-256'];

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'pvep-readme-webhook-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('the Node check accepts a signed body and refuses a changed one, another secret and no header', async () => {
    const file = join(dir, 'verify.mjs');
    writeFileSync(file, block('js'));
    const { verifyWebhook } = (await import(pathToFileURL(file).href)) as { verifyWebhook: Verify };
    expect(verifyWebhook(Buffer.from(BODY), header, SECRET)).to.equal(true);
    expect(verifyWebhook(Buffer.from(BODY.replace('web-1"}', 'web-2"}')), header, SECRET)).to.equal(false);
    expect(verifyWebhook(Buffer.from(BODY), header, `${SECRET}x`)).to.equal(false);
    expect(verifyWebhook(Buffer.from(BODY), undefined, SECRET)).to.equal(false);
  });

  it('the Python check says the same', async () => {
    const script = `${block('python')}
import sys
body = sys.argv[1].encode()
print(verify_webhook(body, sys.argv[2], sys.argv[3]), verify_webhook(body + b" ", sys.argv[2], sys.argv[3]), verify_webhook(body, sys.argv[2], sys.argv[3] + "x"), verify_webhook(body, "", sys.argv[3]))
`;
    const out = await new Promise<string>((resolve, reject) =>
      execFile('python3', ['-c', script, BODY, header ?? '', SECRET], (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout))),
    );
    expect(out.trim()).to.equal('True False False False');
  });
});
