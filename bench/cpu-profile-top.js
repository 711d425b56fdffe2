// `node bench/cpu-profile-top.js FILE.cpuprofile [N]`: the N functions with the most self time in a
// profile written by `node --cpu-prof` (the postgres section writes them with BENCH_CPU_PROF=<dir>),
// and the share of the run the process sat idle.
import { readFileSync } from 'node:fs';

const [file, top = '20'] = process.argv.slice(2);
if (!file) throw new Error('usage: node bench/cpu-profile-top.js FILE.cpuprofile [N]');
const profile = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfMs = new Map();
for (let i = 0; i < profile.samples.length; i++) {
  const node = byId.get(profile.samples[i]);
  const { functionName, url, lineNumber } = node.callFrame;
  const key = `${functionName || '(anonymous)'} ${url.replace(/^.*\/(node_modules|dist)\//, '$1/')}:${lineNumber + 1}`;
  selfMs.set(key, (selfMs.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
}
const total = [...selfMs.values()].reduce((a, b) => a + b, 0);
console.log(`${file}: ${(total / 1000).toFixed(1)} s sampled`);
for (const [key, ms] of [...selfMs].sort((a, b) => b[1] - a[1]).slice(0, Number(top))) {
  console.log(`${ms.toFixed(0).padStart(7)} ms  ${((100 * ms) / total).toFixed(1).padStart(5)}%  ${key}`);
}
