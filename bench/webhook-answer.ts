// The webhook sender's memory against receivers answering a huge body
// (issue 25, SPEC 27): a sender process (bench/_webhook-sender.ts) makes
// 1, then 4 concurrent deliveries to a local receiver whose 200 answer is
// --answer-mib MiB (default 300) written as the socket drains, and prints
// its RSS before and its peak RSS. Options: --answer-mib N, --quick (the
// same sizes: the figure is the point).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { endlessAnswer } from '../test/webhooks/endless-answer.js';
import { benchFlags, intFlag, printJson, printTable } from './_common.js';
import { ROOT } from './_processes.js';

const flags = benchFlags('webhook-answer', { 'answer-mib': { type: 'string' } });
const ANSWER_MIB = intFlag(flags, 'answer-mib', 300, 300);

interface SenderFigures {
  beforeMiB: number;
  peakMiB: number;
  statuses: number[];
}

function runSender(url: string, deliveries: number): Promise<SenderFigures> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench', '_webhook-sender.ts')], {
      cwd: ROOT,
      env: { ...process.env, WEBHOOK_URL: url, DELIVERIES: String(deliveries) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as SenderFigures) : reject(new Error(`sender exited ${code}`))));
  });
}

const receiver = await endlessAnswer(ANSWER_MIB * 1024 * 1024);
try {
  const rows: Record<string, string | number>[] = [];
  for (const deliveries of [1, 4]) {
    const figures = await runSender(receiver.url, deliveries);
    const answers = receiver.ended.splice(0);
    rows.push({
      deliveries,
      statuses: figures.statuses.join(' '),
      rssBeforeMiB: figures.beforeMiB,
      peakRssMiB: figures.peakMiB,
      receiverWroteMiB: Number((answers.reduce((sum, a) => sum + a.written, 0) / 1024 / 1024).toFixed(1)),
    });
  }
  printTable(`webhook sender RSS against a ${ANSWER_MIB} MiB answer (node ${process.version} + tsx)`, rows);
  printJson('webhook-answer', { answerMiB: ANSWER_MIB, runs: rows });
} finally {
  await receiver.close();
}
