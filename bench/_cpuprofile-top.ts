// Prints the top self-time functions of a V8 .cpuprofile (node --cpu-prof),
// for the profiles bench/queue-overhead.ts --profile writes.
//   npx tsx bench/_cpuprofile-top.ts <file.cpuprofile> [count]
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, countText] = process.argv.slice(2);
if (file === undefined) {
  process.stderr.write('usage: _cpuprofile-top.ts <file.cpuprofile> [count]\n');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const frameOf = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
const selfUs = new Map<string, number>();
let total = 0;
profile.samples.forEach((id, i) => {
  const frame = frameOf.get(id);
  const delta = profile.timeDeltas[i] ?? 0;
  total += delta;
  if (frame === undefined) return;
  const where = frame.url.replace(/^.*\/(node_modules|dist)\//, '$1/');
  const key = `${frame.functionName || '(anonymous)'} ${where}:${frame.lineNumber + 1}`;
  selfUs.set(key, (selfUs.get(key) ?? 0) + delta);
});
const top = [...selfUs].sort((a, b) => b[1] - a[1]).slice(0, Number(countText ?? 25));
process.stdout.write(`total ${(total / 1000).toFixed(0)} ms\n`);
for (const [key, us] of top) process.stdout.write(`${((100 * us) / total).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(6)} ms  ${key}\n`);
