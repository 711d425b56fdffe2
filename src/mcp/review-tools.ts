import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { acceptBody, idField, proposal, queueItem, rejectBody, returnBody } from '../wire/schemas.js';
import type { McpBackend } from './backend.js';
import { run } from './tool-kit.js';

/**
 * The reviewer's tools: the queue, and accept, reject or send back a proposal. A decision names who
 * made it (`decided_by`, by default the MCP client's name); a named token decides as itself.
 */
export function registerReviewTools(registerTool: McpServer['registerTool'], backend: McpBackend, decidedBy: (given: string | undefined) => string): void {
  registerTool(
    'list_pending',
    {
      title: 'List proposals waiting for review',
      description: 'The review queue: each pending proposal with its question, consumer and reason, oldest first.',
      inputSchema: {},
      outputSchema: { items: z.array(queueItem) },
      annotations: { title: 'Review queue', readOnlyHint: true, openWorldHint: false },
    },
    () =>
      run(async () => {
        const items = await backend.queue();
        const lines = items.map((i) => `${i.proposal.id}: "${i.request.question}" answered by ${i.proposal.provenance.expert_name}: ${i.proposal.answer}`);
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
      description: 'Accepts a pending proposal: it is delivered to every subscribed consumer. Give `answer` to deliver your corrected text instead (the expert\'s is kept). No-op when already decided.',
      inputSchema: {
        proposal_id: idField,
        note: acceptBody.shape.note,
        decided_by: acceptBody.shape.decided_by.describe('Default "mcp:<client name>".'),
        answer: acceptBody.shape.answer.describe('Your corrected answer, delivered instead of the expert\'s (which is kept).'),
      },
      outputSchema: proposal.shape,
      annotations: decision('accept_proposal'),
    },
    (args) =>
      run(async () => {
        const p = await backend.decide(args.proposal_id, 'accept', { decided_by: decidedBy(args.decided_by), note: args.note, answer: args.answer });
        return { text: `${p.id} is ${p.status} (by ${p.decision?.decided_by}).`, structured: p };
      }),
  );

  registerTool(
    'reject_proposal',
    {
      title: 'Reject a proposal',
      description: 'Rejects a pending proposal; the reason is delivered to the consumers. No-op when already decided.',
      inputSchema: {
        proposal_id: idField,
        reason: rejectBody.shape.reason,
        decided_by: acceptBody.shape.decided_by.describe('Default "mcp:<client name>".'),
      },
      outputSchema: proposal.shape,
      annotations: decision('reject_proposal'),
    },
    (args) =>
      run(async () => {
        const p = await backend.decide(args.proposal_id, 'reject', { decided_by: decidedBy(args.decided_by), reason: args.reason });
        return { text: `${p.id} is ${p.status} (by ${p.decision?.decided_by}).`, structured: p };
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
