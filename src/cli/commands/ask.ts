import { Argument } from 'commander';
import { CliError } from '../cli-error.js';
import type { CliContext } from '../context.js';
import { progressLine, waitingLines } from '../describe-request.js';
import { nonEmpty } from '../options.js';
import type { SubmitResult as ServedSubmitResult } from '../../wire/types.js';
import { TERMINAL, type RequestWire } from '../wire.js';
import { proposalOf } from './requests.js';

/** The long poll answers at a decision or after this many seconds (the server allows up to 50). */
const WAIT_S = 45;

/** The submit's answer; `request_status` (the request's own status right after it) may be absent on an older server. */
type SubmitResult = Omit<ServedSubmitResult, 'request_status'> & Partial<Pick<ServedSubmitResult, 'request_status'>>;

/** `req_… queued`, with the request's status when it says more than the submit's (`queued (request proposed)`). */
function submitted(result: SubmitResult): string {
  const own = result.request_status;
  const more = own !== undefined && own !== result.status && own !== 'queued' && own !== 'asked';
  return `${result.request_id} ${result.status}${more ? ` (request ${own})` : ''}`;
}

/** How long `ask --wait` keeps trying a server that stopped answering (a restart takes about a second). */
const RESTART_PATIENCE_MS = 120_000;
const RETRY_EVERY_MS = 1_000;

/**
 * One long poll, tried again while the server is restarting (unreachable, or 503 while it shuts
 * down), so a waiting `ask --wait` outlives a deploy; `onFirstFailure` says so once.
 */
async function waitThroughRestarts<T>(poll: () => Promise<T>, onFirstFailure: () => void): Promise<T> {
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    try {
      return await poll();
    } catch (error) {
      const restarting = error instanceof CliError && (error.code === 'unreachable' || error.code === 'unavailable');
      if (!restarting || Date.now() - started > RESTART_PATIENCE_MS) throw error;
      if (attempt === 0) onFirstFailure();
      await new Promise((resolve) => setTimeout(resolve, RETRY_EVERY_MS));
    }
  }
}

/** `ask`: submit a question as a consumer, and with `--wait` follow it to its decision. */
export function addAskCommand({ program, say, client, json, print }: CliContext): void {
  program
    .command('ask')
    .description('submit a question as a consumer')
    .addArgument(new Argument('<question>', 'the question for the expert').argParser(nonEmpty('The question')))
    .requiredOption('--topic <topic>', 'topic used to route the question (required)', nonEmpty('--topic'))
    .requiredOption('--because <reason>', 'why you are stuck (shown to the expert) (required)', nonEmpty('--because'))
    .option('--consumer <id>', 'consumer id', 'cli')
    .option('--kind <kind>', 'kind of answer')
    .option('--expert <id...>', 'ask these experts directly')
    .option('--dedup-key <key>', 'deduplication key')
    .option('--wait', 'wait until the request is resolved and print the answer')
    .action(async (question: string, opts: { topic: string; because: string; consumer: string; kind?: string; expert?: string[]; dedupKey?: string; wait?: boolean }) => {
      const c = client();
      const result: SubmitResult = await c.api.submit({
        consumer_id: opts.consumer,
        topic: opts.topic,
        question,
        kind: opts.kind,
        context: { asked_because: opts.because },
        target_experts: opts.expert,
        dedup_key: opts.dedupKey,
      });
      const id = result.request_id;
      if (result.status === 'failed') {
        // Said once: on stderr in words, or as the JSON on stdout with --json; exit 1 either way.
        if (json()) say(JSON.stringify(result, null, 2));
        throw new CliError(json() ? '' : `${id} failed: ${result.reason?.code} (${result.reason?.message})`);
      }
      // What the request waits for now (who was asked, or why nobody is yet), read once.
      const now = json() ? null : await c.api.request(id);
      if (!opts.wait) {
        return print(result, () => {
          say(submitted(result));
          if (now) for (const line of waitingLines(now, Date.now(), c.timeZone)) say(`  ${line}`);
        });
      }

      // Say at once what is being waited for, then long-poll; a line each time the state changes.
      let last = now ? progressLine(now, Date.now(), c.timeZone) : submitted(result);
      if (!json()) say(`${last} (waiting for the answer and a reviewer's decision; Ctrl-C stops waiting, the request stays open)`);
      let request: RequestWire;
      let seen = now?.updated_at;
      for (;;) {
        // Answers at the decision, or at once when anything changed since the record last seen.
        const next = await waitThroughRestarts(
          (): Promise<RequestWire> => c.api.waitForDecision(id, WAIT_S, seen),
          () => !json() && say('The server is not answering (restarting?); still waiting, the request stays open.'),
        );
        request = next;
        seen = request.updated_at;
        if (TERMINAL.includes(request.status)) break;
        const line = progressLine(request, Date.now(), c.timeZone);
        if (line !== last && !json()) say(line);
        last = line;
      }
      const proposal = request.status === 'accepted' || json() ? await proposalOf(c, request) : null;
      print({ request, proposal }, () => {
        say(`${request.id} ${request.status}${request.reason ? `: ${request.reason.code}` : ''}`);
        if (proposal && request.status === 'accepted') say(`Answer from ${proposal.provenance.expert_name}: ${proposal.answer}`);
      });
      if (request.status !== 'accepted') throw new CliError(`request ${request.id} ended ${request.status}`);
    });
}
