// `npm run bench`: builds, then runs each benchmark section in turn and prints a summary.
// Sections are async functions returning { name, ok, summary }; add new ones to SECTIONS
// (`history` measures the 100k SQLite history, cached in bench/.cache/ after its first build;
// `library` the reuse rule's precision on the labelled pairs and the cost of a 100k-entry library).
// Exit code 1 when any section misses its target.
// BENCH_SECTIONS=fanout (comma-separated names) runs only those sections.
//
// Each section runs in a process of its own (this script again, with BENCH_SECTION_OUT naming the
// file its outcome goes to): a section that runs a server in this process, or times calls from it,
// otherwise measured the garbage of every section before it (GET /experts p99 5.5 and 11 ms in two of
// three full runs, 1.5-2.7 ms with the history section alone).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchEmail } from './email.js';
import { benchFanout } from './fanout.js';
import { benchHistory } from './history/run.js';
import { benchLibrary } from './library.js';
import { benchPostgres } from './postgres.js';
import { benchQueueLatency } from './queue-latency.js';
import { benchScheduler } from './scheduler.js';
import { printHeading, printMachine } from './report.js';
import { benchRollups } from './rollups.js';
import { benchSubmit } from './submit.js';

const SECTIONS = [
  { name: 'submit', run: benchSubmit },
  { name: 'rollups', run: benchRollups },
  { name: 'fanout', run: benchFanout },
  { name: 'scheduler', run: benchScheduler },
  { name: 'queue', run: benchQueueLatency },
  { name: 'postgres', run: benchPostgres },
  { name: 'history', run: () => benchHistory() },
  { name: 'library', run: benchLibrary },
  { name: 'email', run: benchEmail },
];

const out = process.env.BENCH_SECTION_OUT;
if (out) {
  // A child: run the one section named and leave its outcome for the parent.
  const section = SECTIONS.find((s) => s.name === process.env.BENCH_SECTIONS);
  const outcome = await section.run();
  writeFileSync(out, JSON.stringify({ name: outcome.name, ok: outcome.ok, summary: outcome.summary }));
  // Explicitly: a connection or timer a section left behind must not keep the child alive.
  process.exit(0);
}

/** Runs one section in a child process; resolves with its outcome (a failed one if the child died). */
async function runInChild(name) {
  const dir = mkdtempSync(join(tmpdir(), 'expertq-bench-'));
  const file = join(dir, 'outcome.json');
  try {
    const code = await new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [fileURLToPath(import.meta.url)], {
        stdio: 'inherit',
        env: { ...process.env, BENCH_SECTIONS: name, BENCH_SECTION_OUT: file },
      });
      child.on('error', reject);
      child.on('exit', (c, signal) => resolve(signal ?? c));
    });
    try {
      return JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      return { name, ok: false, summary: `${name}: the section's process ended (${code}) without an outcome` };
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const wanted = (process.env.BENCH_SECTIONS ?? '').split(',').map((s) => s.trim()).filter(Boolean);
const unknown = wanted.filter((name) => !SECTIONS.some((s) => s.name === name));
if (unknown.length > 0) throw new Error(`BENCH_SECTIONS: unknown section(s) ${unknown.join(', ')}; known: ${SECTIONS.map((s) => s.name).join(', ')}`);

printMachine();
const outcomes = [];
for (const section of SECTIONS) {
  if (wanted.length === 0 || wanted.includes(section.name)) outcomes.push(await runInChild(section.name));
}

printHeading('summary');
for (const o of outcomes) console.log(`${o.ok ? 'ok  ' : 'FAIL'}  ${o.summary}`);
process.exit(outcomes.some((o) => !o.ok) ? 1 : 0);
