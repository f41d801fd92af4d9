// One process of bench/slow-clients.ts's attackers: opens `count`
// connections to 127.0.0.1:`port`, each sending a POST's headers with no
// token and then one byte of its body a second, and counts what the server
// does with them. Prints a JSON line of counts every second and a last one
// on SIGTERM, then exits. Usage: _slow-client.ts PORT COUNT
import { connect } from 'node:net';

const port = Number(process.argv[2]);
const count = Number(process.argv[3]);
if (!Number.isInteger(port) || !Number.isInteger(count) || port <= 0 || count <= 0) {
  process.stderr.write('usage: _slow-client.ts PORT COUNT\n');
  process.exit(2);
}

const counts = { opened: 0, connected: 0, got401: 0, otherAnswer: 0, closedByServer: 0, failed: 0, open: 0 };
const HEAD = `POST /v1/vms HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n{`;
const sockets = new Set<ReturnType<typeof connect>>();
let stopping = false;

function openOne(): void {
  counts.opened += 1;
  const socket = connect({ host: '127.0.0.1', port });
  let answered = false;
  let ended = false;
  sockets.add(socket);
  socket.setEncoding('utf8');
  socket.on('connect', () => {
    counts.connected += 1;
    counts.open += 1;
    socket.write(HEAD);
  });
  socket.on('data', (chunk: string) => {
    if (answered) return;
    answered = true;
    if (chunk.startsWith('HTTP/1.1 401 ')) counts.got401 += 1;
    else counts.otherAnswer += 1;
  });
  socket.on('error', () => {
    if (!socket.connecting) return;
    counts.failed += 1;
    ended = true;
  });
  socket.on('close', () => {
    sockets.delete(socket);
    if (ended) return;
    counts.open -= 1;
    if (!stopping) counts.closedByServer += 1;
  });
}

// A burst of connections a tick, so the first are open before the last are asked for.
const BURST = 500;
let left = count;
const opener = setInterval(() => {
  for (let i = 0; i < BURST && left > 0; i++, left--) openOne();
  if (left === 0) clearInterval(opener);
}, 20);

const trickle = setInterval(() => {
  for (const socket of sockets) if (!socket.connecting && socket.writable) socket.write(' ');
}, 1_000);

const report = (): void => void process.stdout.write(`${JSON.stringify(counts)}\n`);
const reporter = setInterval(report, 1_000);

process.on('SIGTERM', () => {
  stopping = true;
  clearInterval(opener);
  clearInterval(trickle);
  clearInterval(reporter);
  report();
  for (const socket of sockets) socket.destroy();
  process.stdout.write('', () => process.exit(0));
});
