// `npm run bench`: builds, then runs each benchmark section in turn and prints a summary.
// Sections are async functions returning { name, ok, summary }; add new ones to SECTIONS
// (webhook fan-out, scheduler ticks, ...). Exit code 1 when any section misses its target.
import { printHeading, printMachine } from './report.js';
import { benchSubmit } from './submit.js';

const SECTIONS = [benchSubmit];

printMachine();
const outcomes = [];
for (const section of SECTIONS) outcomes.push(await section());

printHeading('summary');
for (const o of outcomes) console.log(`${o.ok ? 'ok  ' : 'FAIL'}  ${o.summary}`);
if (outcomes.some((o) => !o.ok)) process.exitCode = 1;
