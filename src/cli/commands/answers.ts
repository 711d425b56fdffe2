import { readFileSync } from 'node:fs';
import { Option } from 'commander';
import { ANSWER_STATUSES } from '../../domain/answers.js';
import type { AnswerView } from '../../service/library/index.js';
import { systemReason } from '../../config/load-config.js';
import { CliError } from '../cli-error.js';
import { osUser, type CliContext } from '../context.js';
import { parseLimit } from '../options.js';

/** `answers`, `answers import`, `answer` and `retire`: the answer library from the command line. */
export function addAnswerCommands({ program, say, table, client, print, when }: CliContext): void {
  const answers = program
    .command('answers')
    .description('search the answer library: best matches first with a query, newest first without (`answers import <file.jsonl>` adds a FAQ)')
    .argument('[query...]', 'words to search for in questions and answers')
    .option('--topic <topic>', 'only this topic')
    .addOption(new Option('--status <status>', 'only this status').choices(ANSWER_STATUSES))
    .option('--limit <n>', 'how many, 1 to 500', parseLimit, '20')
    .action(async (words: string[], opts: { topic?: string; status?: string; limit: string }) => {
      const query = words.join(' ').trim();
      const q = new URLSearchParams({
        limit: opts.limit,
        ...(query ? { q: query } : {}),
        ...(opts.topic ? { topic: opts.topic } : {}),
        ...(opts.status ? { status: opts.status } : {}),
      });
      const page = await client().get<{ items: AnswerView[] }>(`/answers?${q}`);
      print(page, () => {
        if (page.items.length === 0) return say(query ? `No answers match "${query}"` : 'No answers');
        const head = ['ANSWER', 'STATUS', 'TOPIC', 'EXPERT', ...(query ? ['SCORE'] : []), 'QUESTION'];
        table(head, page.items.map((a) => [a.id, a.status, a.topic, a.expert_name, ...(query ? [a.score!.toFixed(2)] : []), a.question]));
      });
    });

  answers
    .command('import <file>')
    .description('add curated entries from a JSON Lines file, one {topic, kind?, question, answer, expert_id, verified_at?} per line: all of them, or none if any line is wrong')
    .action(async (file: string) => {
      const { entries, lineOf, wrongLines } = readEntries(file);
      const c = client();
      let result: { imported: number };
      try {
        // Lines that are not JSON objects go as null, so the server refuses the whole file and names
        // what is wrong with every other line too; nothing is imported.
        result = await c.post<{ imported: number }>('/answers/import', { entries });
      } catch (error) {
        if (!(error instanceof CliError) || error.code !== 'bad_request' || error.details.length === 0) throw error;
        throw new CliError(nothingImported(file, byLine(error.details, lineOf, wrongLines)));
      }
      print(result, () => say(`Imported ${result.imported} ${result.imported === 1 ? 'entry' : 'entries'} from ${file}.`));
    });

  program
    .command('answer <answer_id>')
    .description('show one library entry: question, answer, who answered and accepted it, when it was last verified')
    .action(async (id: string) => {
      const c = client();
      const a = await c.get<AnswerView>(`/answers/${encodeURIComponent(id)}`);
      print(a, () => {
        say(`${a.id}  ${a.status}`);
        say(`  Topic: ${a.topic}   Kind: ${a.kind}`);
        say(`  Question: ${a.question}`);
        say(`  Answer from ${a.expert_name}: ${a.answer}`);
        say(`  Accepted by ${a.accepted_by} ${when(a.accepted_at, c)}${a.request_id ? ` (request ${a.request_id})` : ' (curated)'}`);
        say(`  Verified ${when(a.verified_at, c)}; reused ${a.reuse_count} ${a.reuse_count === 1 ? 'time' : 'times'}`);
        if (a.retired) say(`  Retired by ${a.retired.by} ${when(a.retired.at, c)}: ${a.retired.reason}`);
      });
    });

  program
    .command('retire <answer_id>')
    .description('retire a library entry: it is never offered again (the entry and its history stay)')
    .requiredOption('--reason <text>', 'why it must not be offered again')
    .addOption(new Option('--decided-by <name>', 'who retires it').default(osUser(), 'your OS user name'))
    .action(async (id: string, opts: { reason: string; decidedBy: string }) => {
      const c = client();
      const path = `/answers/${encodeURIComponent(id)}`;
      // Retiring twice answers the entry unchanged: look first, so that reads as "nothing changed" (exit 1), like accept.
      const before = await c.get<AnswerView>(path);
      if (before.retired) throw new CliError(`${id} was already retired by ${before.retired.by}: ${before.retired.reason}; nothing changed.`);
      const a = await c.api.retireAnswer(id, { decided_by: opts.decidedBy, reason: opts.reason });
      print(a, () => say(`${a.id} retired (by ${a.retired!.by}): it will not be offered again.`));
    });
}

/**
 * The entries of a JSON Lines file (blank lines skipped), each with its line number; a line that is
 * not a JSON object is sent as null (which the server refuses) and what is wrong with it kept by line.
 */
function readEntries(file: string): { entries: unknown[]; lineOf: number[]; wrongLines: Map<number, string> } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliError(`Cannot read ${file}: ${systemReason(error as NodeJS.ErrnoException)}.`);
  }
  const entries: unknown[] = [];
  const lineOf: number[] = [];
  const wrongLines = new Map<number, string>();
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    let value: unknown = null;
    try {
      value = JSON.parse(line);
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        wrongLines.set(i + 1, 'not a JSON object');
        value = null;
      }
    } catch (error) {
      wrongLines.set(i + 1, `not JSON (${(error as Error).message})`);
    }
    entries.push(value);
    lineOf.push(i + 1);
  });
  if (entries.length === 0) throw new CliError(`${file} has no entries: write one JSON object per line.`);
  return { entries, lineOf, wrongLines };
}

/** A line's problems are said together, lines in file order: the server's `entries.3.question` is the 4th entry's line. */
function byLine(details: ReadonlyArray<{ path: string; message: string }>, lineOf: readonly number[], wrongLines: ReadonlyMap<number, string>): Array<[number | null, string]> {
  const lines = new Map<number, string[]>(); // what the server said of each line
  const other: string[] = []; // what is not about one entry (the file as a whole)
  for (const detail of details) {
    const m = /^entries\.(\d+)\.?(.*)$/.exec(detail.path);
    const line = m ? lineOf[Number(m[1])] : undefined;
    if (line === undefined) other.push(`${detail.path}: ${detail.message}`);
    else lines.set(line, [...(lines.get(line) ?? []), `${m![2] ? `${m![2]}: ` : ''}${detail.message}`]);
  }
  // A line the CLI could not read is said in its words (the server only saw a null there).
  for (const [line, problem] of wrongLines) lines.set(line, [problem]);
  return [...[...lines].sort(([a], [b]) => a - b).map(([line, problems]): [number, string] => [line, problems.join('; ')]), ...other.map((p): [null, string] => [null, p])];
}

/** At most this many wrong lines are listed; the rest are counted. */
const LINES_LISTED = 100;

function nothingImported(file: string, problems: ReadonlyArray<[number | null, string]>): string {
  const wrong = problems.filter(([line]) => line !== null).length;
  const listed = problems.slice(0, LINES_LISTED).map(([line, problem]) => `  ${line === null ? '' : `line ${line}: `}${problem}`);
  const more = problems.length - listed.length;
  const head = wrong === 0 ? 'the file is refused' : wrong === 1 ? 'one line is wrong' : `${wrong} lines are wrong`;
  return `Nothing imported from ${file}: ${head}.\n${listed.join('\n')}${more > 0 ? `\n  … and ${more} more ${more === 1 ? 'line' : 'lines'}.` : ''}`;
}
