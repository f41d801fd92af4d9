// The sending side of bench/webhook-answer.ts, a process of its own so its
// RSS is the worker's alone: WEBHOOK_URL, DELIVERIES (sent at once).
// Prints one JSON line: the RSS before, the peak RSS (getrusage), the statuses.
import { sendDelivery } from '../src/webhooks/send.js';

const url = process.env.WEBHOOK_URL ?? '';
const count = Number(process.env.DELIVERIES ?? '1');
const mib = (bytes: number): number => Number((bytes / 1024 / 1024).toFixed(1));

const beforeMiB = mib(process.memoryUsage().rss);
const statuses = await Promise.all(
  Array.from({ length: count }, (_, i) =>
    sendDelivery({ deliveryId: `bench-${i}`, event: 'vm.ready', body: '{"event":"vm.ready"}' }, { url, secret: 'bench-webhook-secret', timeoutMs: 120_000 }),
  ),
);
// maxRSS is in KiB.
const peakMiB = mib(process.resourceUsage().maxRSS * 1024);
process.stdout.write(`${JSON.stringify({ beforeMiB, peakMiB, statuses })}\n`);
