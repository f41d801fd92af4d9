// A webhook receiver to try pve-provisioner's webhooks with (SPEC 27):
// it checks each body's X-Signature-256 against the shared secret, prints
// one line per event and answers 204; a bad signature gets 401.
//   node examples/webhook-receiver.mjs SECRET_FILE [PORT]
import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const [secretFile, port = '9000'] = process.argv.slice(2);
if (!secretFile) {
  console.error('usage: node examples/webhook-receiver.mjs SECRET_FILE [PORT]');
  process.exit(2);
}
const secret = readFileSync(secretFile, 'utf8').trim();

function verifyWebhook(rawBody, header) {
  const expected = Buffer.from('sha256=' + createHmac('sha256', secret).update(rawBody).digest('hex'));
  const given = Buffer.from(String(header ?? ''));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const seen = new Set();
createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const raw = Buffer.concat(chunks);
    if (!verifyWebhook(raw, req.headers['x-signature-256'])) {
      console.log('refused a body with a bad signature');
      res.writeHead(401).end();
      return;
    }
    const body = JSON.parse(raw.toString('utf8'));
    // Delivery is at least once: a delivery id seen before is done already.
    const again = seen.has(body.deliveryId) ? ' (again)' : '';
    seen.add(body.deliveryId);
    const address = body.result?.address ? ` address ${body.result.address}` : '';
    const error = body.result?.error ? ` error ${body.result.error}` : '';
    console.log(`${body.event} ${body.name} job ${body.jobId}${address}${error}, signature ok${again}`);
    res.writeHead(204).end();
  });
}).listen(Number(port), '127.0.0.1', () => console.log(`receiving webhooks on http://127.0.0.1:${port}/`));
