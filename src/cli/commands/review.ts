import { readFileSync } from 'node:fs';
import { Option } from 'commander';
import { CliError } from '../cli-error.js';
import { osUser, type CliContext } from '../context.js';
import { librarySourceLine } from '../../core/describe-source.js';
import { askedAsLine, outcomeOf, PAST } from '../describe-request.js';
import { votesLine } from '../describe-votes.js';
import type { ProposalBody } from '../wire.js';
import type { DecidedProposal } from '../../client/api.js';

/** An accept's or reject's answer; `message` may be missing from an older server, and from a send back. */
type Decided = Omit<DecidedProposal, 'message'> & { message?: string };

function readAnswerFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new CliError(`Cannot read --answer-file ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

const alreadyDecided = (p: ProposalBody) =>
  new CliError(`${p.id} was already ${PAST[outcomeOf(p)]}${p.decision ? ` by ${p.decision.decided_by}` : ''}; nothing changed.`);

/** `queue`, `accept`, `return` and `reject`: a reviewer's commands. */
export function addReviewCommands({ program, say, client, json, print }: CliContext): void {
  /**
   * Accept, reject and return answer 200 with the proposal as it is when it was decided before (a
   * no-op): look first, so a second `accept` says it changed nothing and exits 1. Under a review rule
   * an accept or reject may be a vote that leaves the proposal pending; the server's `message` says
   * where the vote stands, and a vote that changed nothing (the same person again) exits 1 as well.
   */
  const decide = async (id: string, verb: 'accept' | 'reject' | 'return', body: Record<string, unknown>): Promise<Decided> => {
    const c = client();
    const path = `/proposals/${encodeURIComponent(id)}`;
    // A token that may not read proposals gets the decision's own 403 below, which says what it may not do.
    const before = await c.get<ProposalBody>(path).catch((error: unknown) => {
      if (error instanceof CliError && error.code === 'forbidden') return null;
      throw error;
    });
    if (before && before.status !== 'pending') throw alreadyDecided(before);
    const p = await c.post<Decided>(`${path}/${verb}`, body);
    if (p.status === 'pending' && verb !== 'return') {
      if (before && JSON.stringify(before.votes ?? []) === JSON.stringify(p.votes ?? [])) throw new CliError(`${p.id}: ${p.message ?? 'nothing changed.'}`);
      return p;
    }
    if (outcomeOf(p) !== verb) throw alreadyDecided(p); // decided otherwise by someone else between the two calls
    return p;
  };
  const decided = (p: Decided) =>
    print(p, () => {
      if (p.status === 'pending') return say(`${p.id}: ${p.message}`);
      say(`${p.id} is ${p.status} (by ${p.decision!.decided_by}${p.decision!.reason ? `: ${p.decision!.reason}` : ''})`);
      // "Accepted." says nothing the line above does not; a decision under a review rule says how it was reached.
      if (p.message && !/^(Accepted|Rejected)\.$/.test(p.message)) say(`  ${p.message}`);
    });

  program
    .command('queue')
    .description('list the pending proposals you may decide, with their question, answer and votes')
    .option('--mine', 'only those still waiting for your vote')
    .action(async (opts: { mine?: boolean }) => {
      const items = await client().api.queue(opts.mine === true);
      print(items, () => {
        if (items.length === 0) return say('Nothing pending');
        for (const { proposal, request } of items) {
          say(`${proposal.id}  (request ${request.id}, topic "${request.topic}", from ${request.consumer_id})`);
          say(`  Question: ${request.question}`);
          const askedAs = askedAsLine(request);
          if (askedAs) say(`  ${askedAs}`);
          say(`  Answer from ${proposal.provenance.expert_name}: ${proposal.answer}`);
          const source = librarySourceLine(proposal.provenance, proposal.confidence);
          if (source) say(`  ${source}`);
          if (proposal.provenance.original_question) say(`  First asked as: ${proposal.provenance.original_question}`);
          const llm = proposal.provenance.llm;
          if (llm?.structured) say(`  Structured (confidence ${proposal.confidence}): ${JSON.stringify(proposal.structured)}`);
          else if (llm) say('  Structured: not by the LLM (it fell back; see the audit)');
          const votes = votesLine(proposal);
          if (votes) say(`  ${votes}`);
          say();
        }
      });
    });

  program
    .command('accept <proposal_id>')
    .description('accept a pending proposal, optionally with your corrected answer')
    .addOption(new Option('--decided-by <name>', 'who approves').default(osUser(), 'your OS user name'))
    .option('--note <text>', 'note recorded with the decision')
    .option('--answer <text>', 'deliver this corrected answer instead (the expert\'s text is kept as original_answer)')
    .option('--answer-file <path>', 'read the corrected answer from a file')
    .action(async (id: string, opts: { decidedBy: string; note?: string; answer?: string; answerFile?: string }) => {
      if (opts.answer !== undefined && opts.answerFile !== undefined) throw new CliError('Give --answer or --answer-file, not both.', 2);
      const answer = opts.answerFile !== undefined ? readAnswerFile(opts.answerFile) : opts.answer;
      const body = { decided_by: opts.decidedBy, note: opts.note, ...(answer !== undefined ? { answer } : {}) };
      const p = await decide(id, 'accept', body);
      decided(p);
      if (!json() && p.original_answer !== null && p.decision) say(`  delivered your edit; the expert's text is kept: ${p.original_answer}`);
    });

  program
    .command('return <proposal_id>')
    .alias('send-back')
    .description('send a pending proposal back to its expert with instructions (the expert is asked again)')
    .option('--instructions <text>', 'what the expert should change or add (required, except for a reused library answer)')
    .addOption(new Option('--decided-by <name>', 'who sends it back').default(osUser(), 'your OS user name'))
    .action(async (id: string, opts: { decidedBy: string; instructions?: string }) => {
      const p = await decide(id, 'return', { decided_by: opts.decidedBy, instructions: opts.instructions });
      const to = p.provenance.reused_from === undefined ? p.provenance.expert_name : 'the experts (it was a library answer)';
      print(p, () => say(`${p.id} sent back to ${to} (by ${p.decision!.decided_by}); the request waits for a new answer.`));
    });

  program
    .command('reject <proposal_id>')
    .description('reject a pending proposal')
    .requiredOption('--reason <text>', 'why; delivered to the consumer (required)')
    .addOption(new Option('--decided-by <name>', 'who rejects').default(osUser(), 'your OS user name'))
    .action(async (id: string, opts: { decidedBy: string; reason: string }) => {
      decided(await decide(id, 'reject', { decided_by: opts.decidedBy, reason: opts.reason }));
    });
}
