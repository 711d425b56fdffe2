import { channelPhrase } from '../../wire/channel-phrase.js';
import { Option } from 'commander';
import type { Client } from '../../client/client.js';
import { CliError } from '../cli-error.js';
import type { CliContext } from '../context.js';
import { askedAsLine, proposalState, statusCell, waitingLines } from '../describe-request.js';
import { parseLimit } from '../options.js';
import { REQUEST_STATUSES, TERMINAL, type ProposalBody, type RequestWire } from '../wire.js';

/**
 * A request's latest proposal: from the record when the server sends it there (a consumer's token may
 * not read proposals), else read by id; null when there is none or this token may not read it.
 */
export async function proposalOf(c: Client, r: RequestWire): Promise<ProposalBody | null> {
  if ('proposal' in r) return r.proposal ?? null;
  if (!r.proposal_id) return null;
  return c.api.proposal(r.proposal_id).catch((error: unknown) => {
    if (error instanceof CliError && error.code === 'forbidden') return null;
    throw error;
  });
}

/** "req_…  failed (cancelled: Cancelled by api:cli)": the first line about a request. */
export const headline = (r: RequestWire) => `${r.id}  ${r.status}${r.reason ? ` (${r.reason.code}: ${r.reason.message})` : ''}`;

/** `requests`, `request`, `audit` and `cancel`: reading requests and taking one back. */
export function addRequestCommands({ program, say, table, client, print, when }: CliContext): void {
  program
    .command('requests')
    .description('list requests, newest first')
    .addOption(new Option('--status <status>', 'only this status').choices(REQUEST_STATUSES))
    .option('--topic <topic>', 'only this topic')
    .option('--consumer <id>', 'only this consumer')
    .option('--search <words>', 'only requests whose question has a word starting with each of these (case ignored)')
    .option('--limit <n>', 'how many, 1 to 500', parseLimit, '20')
    .action(async (opts: { status?: string; topic?: string; consumer?: string; search?: string; limit: string }) => {
      const q = new URLSearchParams({
        limit: opts.limit,
        ...(opts.status ? { status: opts.status } : {}),
        ...(opts.topic ? { topic: opts.topic } : {}),
        ...(opts.consumer ? { consumer_id: opts.consumer } : {}),
        ...(opts.search ? { q: opts.search } : {}),
      });
      const page = await client().get<{ items: RequestWire[] }>(`/requests?${q}`);
      print(page, () => {
        if (page.items.length === 0) return say('No requests');
        table(['REQUEST', 'STATUS', 'TOPIC', 'CONSUMER', 'QUESTION'], page.items.map((r) => [r.id, statusCell(r), r.topic, r.consumer_id, r.question]));
      });
    });

  program
    .command('request <request_id>')
    .description('show one request: its asks, why it waits and until when, and its proposal')
    .action(async (id: string) => {
      const c = client();
      const r: RequestWire = await c.api.request(id);
      const proposal = await proposalOf(c, r);
      print(r, () => {
        say(headline(r));
        say(`  Topic: ${r.topic}   Consumer: ${r.consumer_id}   Kind: ${r.kind}`);
        say(`  Question: ${r.question}`);
        const askedAs = askedAsLine(r);
        if (askedAs) say(`  ${askedAs}`);
        for (const a of r.asks) say(`  Ask ${a.id} → ${a.expert_id}: ${a.state}${a.sent_at ? ` (sent${channelPhrase(a.channel)} ${when(a.sent_at, c)})` : ''}`);
        if (!TERMINAL.includes(r.status)) for (const line of waitingLines(r, Date.now(), c.timeZone)) say(`  ${line}`);
        if (proposal) {
          say(`  Proposal ${proposal.id} (${proposalState(proposal)})`);
          say(`  Answer from ${proposal.provenance.expert_name}: ${proposal.answer}`);
          if (proposal.original_answer !== null) say(`  (edited; the expert wrote: ${proposal.original_answer})`);
        }
      });
    });

  program
    .command('cancel <request_id>')
    .description('cancel an open request: it fails with reason cancelled and its open asks are withdrawn')
    .action(async (id: string) => {
      const c = client();
      // Cancelling a closed request answers it unchanged: look first, so that reads as "nothing changed" (exit 1), like accept.
      const before = await c.api.request(id);
      if (TERMINAL.includes(before.status)) throw new CliError(`${before.id} is already ${before.status}; nothing changed.`);
      const r = await c.api.cancel(id);
      print(r, () => say(headline(r)));
    });

  program
    .command('audit <request_id>')
    .description('every step of a request')
    .action(async (id: string) => {
      const rows = await client().api.audit(id);
      // The details are the record: never cut.
      print(rows, () => table(['AT', 'WHAT', 'BY', 'DETAILS'], rows.map((e) => [e.at, e.type, e.actor, JSON.stringify(e.data)]), Infinity));
    });
}
