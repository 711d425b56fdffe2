import { createHash } from 'node:crypto';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { normalizeTopic } from '../core/normalize-topic.js';
import { expertView, idField, proposal, reason, requestRecord, submitRequestBody, topicView, waiting } from '../wire/schemas.js';
import type { RequestRecord } from '../wire/types.js';
import type { Role } from '../service/sessions/index.js';
import type { McpBackend } from './backend.js';
import { describeOutcome, waitingMessage } from './describe.js';
import { registerLibraryTools } from './library-tools.js';
import { registerReviewTools } from './review-tools.js';
import { run, toolRegistrar } from './tool-kit.js';

export interface ToolOptions {
  /** How often a waiting call sends a progress notification (at least every 15 s). */
  progressEveryMs?: number;
  /** The consumer id `ask_expert` uses when none is given (a consumer token's own name, else `mcp`). */
  defaultConsumer?: string;
  clock?: () => number;
  /** The caller's role: only the tools it may use are listed (default: all). */
  role?: Role;
}


/** No tool call may last longer than this (MCP clients give up after about 45–60 s). */
export const MAX_WAIT_S = 50;
const DONE = new Set(['accepted', 'rejected', 'failed']);

const submit = submitRequestBody.shape;
const askedShape = z.array(z.object({ expert_name: z.string(), sent_at: z.string().nullable(), channel: z.string().nullable() }));

/**
 * The expertq tools, defined once for both transports. A human answer takes hours and an
 * MCP client gives up on a call after about a minute, so nothing here blocks past 50 s: `ask_expert`
 * returns a request id at once (or after an optional short wait), and `wait_for_answer` is the call an
 * agent repeats until the answer is decided. Retrying `ask_expert` never asks an expert twice: without a
 * `dedup_key` one is derived from the consumer, topic and question.
 */
export function registerTools(server: McpServer, backend: McpBackend, options: ToolOptions = {}): void {
  const every = options.progressEveryMs ?? 15_000;
  const clock = options.clock ?? Date.now;
  const decidedBy = (given: string | undefined) => given ?? `mcp:${server.server.getClientVersion()?.name ?? 'client'}`;
  const registerTool = toolRegistrar(server, options.role ?? 'admin');

  registerTool(
    'ask_expert',
    {
      title: 'Ask a human expert',
      description:
        'Ask a named human expert a question. Returns a request_id at once; the human answer takes minutes to hours. ' +
        'Then call wait_for_answer with the request_id (repeat it until done is true). Do not call ask_expert again for the same question: a retry attaches to the same request.',
      inputSchema: {
        // The submit body's own fields and limits; only the descriptions speak to an agent.
        topic: submit.topic.describe('Topic used to route the question to an expert, e.g. "billing".'),
        question: submit.question.describe('One question, answerable by a person from memory in a sentence or two.'),
        asked_because: submit.context.shape.asked_because.describe('Why you are stuck: shown to the expert.'),
        kind: submit.kind.describe('Kind of answer (selects a consumer capture schema); default "answer".'),
        target_experts: submit.target_experts.describe('Ask these expert ids directly, skipping routing.'),
        dedup_key: submit.dedup_key.describe('Your own deduplication key; derived from consumer, topic and question when absent.'),
        consumer_id: submit.consumer_id.optional().describe('Who asks; default "mcp".'),
        wait_s: z.number().int().min(0).max(45).optional().describe('Wait up to this many seconds for a decision before returning (default 0).'),
      },
      outputSchema: {
        request_id: z.string(),
        status: z.string().describe('queued | deduped_open | deduped_resolved | failed, or the request status after waiting'),
        request_status: z.string().describe('The request\'s own status: proposed when an answer from the library waits for a reviewer (nobody was asked), asked, queued, …'),
        reason: reason.optional(),
        proposal: proposal.optional(),
        next_check_after_s: z.number(),
      },
      annotations: { title: 'Ask a human expert', readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    },
    (args, extra) =>
      run(async () => {
        const consumer = args.consumer_id ?? options.defaultConsumer ?? 'mcp';
        const submitted = await backend.submit({
          consumer_id: consumer,
          topic: args.topic,
          question: args.question,
          kind: args.kind,
          context: { asked_because: args.asked_because },
          target_experts: args.target_experts,
          dedup_key: args.dedup_key ?? derivedDedupKey(consumer, args.topic, args.question),
        });
        let result: Record<string, unknown> = { ...submitted, next_check_after_s: 30 };
        const open = submitted.status === 'queued' || submitted.status === 'deduped_open';
        if (open && (args.wait_s ?? 0) > 0) {
          const view = await waitWithProgress(backend, submitted.request_id, args.wait_s! * 1000, extra, every, clock);
          if (DONE.has(view.status)) result = { ...answerOf(view), status: view.status, request_status: view.status };
        }
        const text = open && !DONE.has(String(result.status))
          ? `Asked: request ${submitted.request_id} is ${standing(submitted)}. ` +
            `A person answers; this takes minutes to hours. Next: call wait_for_answer with request_id "${submitted.request_id}" (repeat until done is true). Do not call ask_expert again for this question.`
          : describeOutcome(result);
        return { text, structured: result };
      }),
  );

  registerTool(
    'wait_for_answer',
    {
      title: 'Wait for the answer to a request',
      description:
        `Waits until the request is accepted, rejected or failed (returns at once then), or at most timeout_s (≤ ${MAX_WAIT_S}) with its current state. ` +
        'If done is false, call it again after next_check_after_s. Sends progress notifications while waiting when the call has a progress token.',
      inputSchema: {
        request_id: idField,
        timeout_s: z.number().int().min(1).max(MAX_WAIT_S).optional().describe('Default 45.'),
      },
      outputSchema: {
        request_id: z.string(),
        status: z.string(),
        done: z.boolean(),
        proposal: proposal.optional(),
        reason: reason.optional(),
        asked: askedShape.optional(),
        waiting: waiting.nullable().optional(),
        gives_up_at: z.string().nullable().optional(),
        next_check_after_s: z.number(),
      },
      annotations: { title: 'Wait for the answer', readOnlyHint: true, openWorldHint: false },
    },
    (args, extra) =>
      run(async () => {
        const view = await waitWithProgress(backend, args.request_id, (args.timeout_s ?? 45) * 1000, extra, every, clock);
        const done = DONE.has(view.status);
        const structured: Record<string, unknown> = {
          ...answerOf(view),
          status: view.status,
          done,
          ...(done ? {} : { asked: view.asked.map((a) => ({ expert_name: a.expert_name, sent_at: a.sent_at, channel: a.channel })), waiting: view.waiting, gives_up_at: view.gives_up_at }),
          next_check_after_s: done ? 0 : 5,
        };
        const text = done
          ? describeOutcome(structured)
          : `Not decided yet (status ${view.status}). ${waitingMessage(view, clock())} Call wait_for_answer again with request_id "${view.id}".`;
        return { text, structured };
      }),
  );

  registerTool(
    'get_request',
    {
      title: 'Read a request',
      description: 'The full request record: status, asks, subscribers, proposal id.',
      inputSchema: { request_id: idField },
      outputSchema: requestRecord.shape,
      annotations: { title: 'Read a request', readOnlyHint: true, openWorldHint: false },
    },
    (args) => run(async () => record(await backend.getRequest(args.request_id))),
  );

  registerTool(
    'cancel_request',
    {
      title: 'Cancel a request',
      description: 'Cancels an open request (it fails with reason "cancelled" and its experts are released); a resolved request is returned as it is.',
      inputSchema: { request_id: idField },
      outputSchema: requestRecord.shape,
      annotations: { title: 'Cancel a request', readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    (args) => run(async () => record(await backend.cancel(args.request_id))),
  );

  registerTool(
    'list_topics',
    {
      title: 'List the topics',
      description:
        'The topics questions can be asked about, with how many experts take each and how many could be asked right now. Use one of these topics with ask_expert.',
      inputSchema: {},
      outputSchema: { topics: z.array(topicView) },
      annotations: { title: 'List the topics', readOnlyHint: true, openWorldHint: false },
    },
    () =>
      run(async () => {
        const topics = await backend.topics();
        const lines = topics.map((t) => `${t.topic}: ${t.experts} expert${t.experts === 1 ? '' : 's'}, ${t.available_now} available now${t.fallback ? ` (fallback ${t.fallback})` : ''}`);
        return { text: lines.join('\n') || 'No topics are configured.', structured: { topics } };
      }),
  );

  registerTool(
    'list_experts',
    {
      title: 'List experts',
      description: 'The expert registry with live state: muted, open asks, asks today.',
      inputSchema: {},
      outputSchema: { experts: z.array(expertView) },
      annotations: { title: 'List experts', readOnlyHint: true, openWorldHint: false },
    },
    () =>
      run(async () => {
        const experts = await backend.experts();
        const state = (e: (typeof experts)[number]) =>
          e.muted ? 'muted' : e.away ? `away until ${e.away.until}${e.away.delegate_to ? ` (${e.away.delegate_to} stands in)` : ''}` : `${e.open_asks} open asks, ${e.asks_today} today`;
        const lines = experts.map((e) => `${e.name} (${e.id}): ${e.topics.join(', ')}; ${state(e)}`);
        return { text: lines.join('\n') || 'No experts are configured.', structured: { experts } };
      }),
  );

  registerReviewTools(registerTool, backend, decidedBy);
  registerLibraryTools(registerTool, backend);
}


/** `mcp:` + SHA-256 of consumer, normalized topic and question: the same ask from the same agent dedups. */
export function derivedDedupKey(consumer: string, topic: string, question: string): string {
  const digest = createHash('sha256').update(`${consumer}\0${normalizeTopic(topic)}\0${question.trim()}`).digest('hex');
  return `mcp:${digest}`;
}

const record = (view: RequestRecord) => ({ text: `Request ${view.id}: ${view.status}${view.reason ? ` (${view.reason.code}: ${view.reason.message})` : ''}.`, structured: view as unknown as Record<string, unknown> });

/** The request's outcome fields: the accepted (or rejected) proposal, or the failure reason. */
function answerOf(view: RequestRecord): Record<string, unknown> {
  const out: Record<string, unknown> = { request_id: view.id };
  if (view.reason) out.reason = view.reason;
  if ((view.status === 'accepted' || view.status === 'rejected') && view.proposal) out.proposal = view.proposal;
  return out;
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** Waits for a decision; while it waits, a progress notification every `every` ms when the call asked for them. */
async function waitWithProgress(backend: McpBackend, requestId: string, timeoutMs: number, extra: Extra, every: number, clock: () => number): Promise<RequestRecord> {
  const token = extra._meta?.progressToken;
  const abort = new AbortController();
  const stop = () => abort.abort();
  extra.signal.addEventListener('abort', stop, { once: true });
  let progress = 0;
  let timer: NodeJS.Timeout | null = null;
  if (token !== undefined) {
    timer = setInterval(() => {
      void (async () => {
        const view = await backend.getRequest(requestId);
        progress += 1;
        await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress, message: waitingMessage(view, clock()) } });
      })().catch(() => {});
    }, every);
  }
  try {
    return await backend.waitForDecision(requestId, Math.min(timeoutMs, MAX_WAIT_S * 1000), abort.signal);
  } finally {
    if (timer) clearInterval(timer);
    extra.signal.removeEventListener('abort', stop);
  }
}

/** Where a just-submitted open request stands, in words. */
function standing(submitted: { status: string; request_status: string }): string {
  if (submitted.request_status === 'proposed') return 'answered from the answer library; a reviewer must accept it before it is yours (nobody was asked)';
  return submitted.status === 'deduped_open' ? 'already open (your earlier ask; no new ask was made)' : 'queued';
}
