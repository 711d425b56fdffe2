import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { DecidedProposal } from '../client/api.js';
import { acceptBody, decidedProposal, idField, proposal, queueItem, rejectBody, returnBody } from '../wire/schemas.js';
import type { McpBackend, QueueEntry } from './backend.js';
import { run } from './tool-kit.js';
import { voteStanding } from '../core/vote-standing.js';

/** " (votes 1/2: Sec One accepted)" for a proposal whose votes are counted; nothing when one accept decides and nobody voted. */
function votesNote(p: QueueEntry['proposal']): string {
  const s = voteStanding(p);
  if (!s) return '';
  const who = s.votes.map((v) => `${v.by} ${v.decision === 'accept' ? 'accepted' : 'rejected'}`);
  return ` (votes ${s.accepts}/${s.needed}${who.length > 0 ? `: ${who.join(', ')}` : ''}${s.mayStillVote})`;
}

/** What an accept or reject did, in one line: still pending while a review rule waits for more votes. */
function decisionText(p: DecidedProposal): string {
  if (p.status === 'pending') return `${p.id} is still pending: ${p.message}`;
  const line = `${p.id} is ${p.status} (by ${p.decision?.decided_by}).`;
  return /^(Accepted|Rejected)\.$/.test(p.message) ? line : `${line} ${p.message}`;
}

const VOTES =
  'Where a review rule asks several reviewers to agree, your decision is one vote: the proposal stays pending until enough distinct reviewers accepted, and `message` says where the vote stands ("Approval recorded: 1 of 2, waiting for a second reviewer."). Voting again changes nothing. Only the rule\'s reviewers may decide its proposals; anyone else gets forbidden, naming the rule.';

/**
 * The reviewer's tools: the queue, and accept, reject or send back a proposal. A decision names who
 * made it (`decided_by`, by default the MCP client's name); a named token decides as itself. Under
 * review rules the queue is the caller's own (what they may decide) and a decision may be one vote.
 */
export function registerReviewTools(registerTool: McpServer['registerTool'], backend: McpBackend, decidedBy: (given: string | undefined) => string): void {
  registerTool(
    'list_pending',
    {
      title: 'List proposals waiting for review',
      description:
        'The review queue: only the proposals you may decide (a proposal a review rule covers shows to its reviewers), each with its question, consumer and reason, oldest first. Where votes are counted, each shows `votes` so far and `approvals_needed` (distinct reviewers who must accept). `mine: true` lists only those still waiting for your vote.',
      inputSchema: { mine: z.boolean().optional().describe('true: only the proposals still waiting for your vote.') },
      outputSchema: { items: z.array(queueItem) },
      annotations: { title: 'Review queue', readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      run(async () => {
        const items = await backend.queue(args.mine === true);
        const lines = items.map((i) => `${i.proposal.id}${votesNote(i.proposal)}: "${i.request.question}" answered by ${i.proposal.provenance.expert_name}: ${i.proposal.answer}`);
        return { text: lines.join('\n') || 'Nothing pending.', structured: { items } };
      }),
  );

  const decision = (name: 'accept_proposal' | 'reject_proposal' | 'return_proposal') => ({
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
    title: { accept_proposal: 'Accept a proposal', reject_proposal: 'Reject a proposal', return_proposal: 'Send a proposal back to its expert' }[name],
  });

  registerTool(
    'accept_proposal',
    {
      title: 'Accept a proposal',
      description: 'Accepts a pending proposal: it is delivered to every subscribed consumer. Give `answer` to deliver your corrected text instead (the expert\'s is kept); an edit restarts a vote count, your accept being the first approval of the new text. No-op when already decided. ' +
        VOTES,
      inputSchema: {
        proposal_id: idField,
        note: acceptBody.shape.note,
        decided_by: acceptBody.shape.decided_by.describe('Default "mcp:<client name>".'),
        answer: acceptBody.shape.answer.describe('Your corrected answer, delivered instead of the expert\'s (which is kept).'),
      },
      outputSchema: decidedProposal.shape,
      annotations: decision('accept_proposal'),
    },
    (args) =>
      run(async () => {
        const p = await backend.decide(args.proposal_id, 'accept', { decided_by: decidedBy(args.decided_by), note: args.note, answer: args.answer });
        return { text: decisionText(p), structured: p };
      }),
  );

  registerTool(
    'reject_proposal',
    {
      title: 'Reject a proposal',
      description:
        'Rejects a pending proposal; the reason is delivered to the consumers. No-op when already decided. Under a review rule a reject is a vote too: with a veto (the default) one rejection rejects at once; without, the proposal stays pending until as many reviewers rejected as must accept. `message` says what happened.',
      inputSchema: {
        proposal_id: idField,
        reason: rejectBody.shape.reason,
        decided_by: acceptBody.shape.decided_by.describe('Default "mcp:<client name>".'),
      },
      outputSchema: decidedProposal.shape,
      annotations: decision('reject_proposal'),
    },
    (args) =>
      run(async () => {
        const p = await backend.decide(args.proposal_id, 'reject', { decided_by: decidedBy(args.decided_by), reason: args.reason });
        return { text: decisionText(p), structured: p };
      }),
  );

  registerTool(
    'return_proposal',
    {
      title: 'Send a proposal back to its expert',
      description: 'Withdraws a pending proposal and asks the same expert again with your instructions; consumers are not told of a rejection. For an answer reused from the library, asks an expert instead. No-op when already decided.',
      inputSchema: {
        proposal_id: idField,
        instructions: returnBody.shape.instructions.describe('Required, except for an answer reused from the library: sending it back then means "ask an expert".'),
        decided_by: acceptBody.shape.decided_by.describe('Default "mcp:<client name>".'),
      },
      outputSchema: proposal.shape,
      annotations: decision('return_proposal'),
    },
    (args) =>
      run(async () => {
        const p = await backend.returnProposal(args.proposal_id, { decided_by: decidedBy(args.decided_by), instructions: args.instructions });
        return { text: `${p.id} was sent back to ${p.provenance.expert_name} (by ${p.decision?.decided_by}).`, structured: p };
      }),
  );
}
