import type { z } from 'zod';
import type { expertView, queueItem, topicView } from '../http/schemas.js';
import type { AnswerListQuery, AnswerView } from '../service/library/index.js';
import type { SubmitResult, RequestView } from '../service/requests/index.js';
import type { ProposalBody } from '../service/review/index.js';

export type ExpertItem = z.infer<typeof expertView>;
export type QueueEntry = z.infer<typeof queueItem>;
export type TopicItem = z.infer<typeof topicView>;

/** A failure a tool reports as an `isError` result with the API's error code (never a crash of the connection). */
export class McpToolError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface SubmitBody {
  consumer_id: string;
  topic: string;
  question: string;
  kind?: string | undefined;
  context: { asked_because: string };
  target_experts?: string[] | undefined;
  dedup_key?: string | undefined;
}

/**
 * What the MCP tools need from expertq. Two implementations: the running service in this process
 * (`/mcp`, with the caller's token role applied as the HTTP routes apply it) and the HTTP API of a
 * running server (`expertq mcp` over stdio, where the API applies it). The tools are defined once,
 * against this.
 */
export interface McpBackend {
  submit(body: SubmitBody): Promise<SubmitResult>;
  getRequest(id: string): Promise<RequestView>;
  /** The request once decided or failed, or at `timeoutMs` as it stands then. */
  waitForDecision(id: string, timeoutMs: number, signal: AbortSignal): Promise<RequestView>;
  cancel(id: string): Promise<RequestView>;
  proposal(id: string): Promise<ProposalBody>;
  experts(): Promise<ExpertItem[]>;
  topics(): Promise<TopicItem[]>;
  queue(): Promise<QueueEntry[]>;
  decide(id: string, decision: 'accept' | 'reject', body: { decided_by: string; note?: string | undefined; reason?: string | undefined; answer?: string | undefined; structured?: unknown }): Promise<ProposalBody>;
  returnProposal(id: string, body: { decided_by: string; instructions?: string | undefined }): Promise<ProposalBody>;
  searchAnswers(query: AnswerListQuery): Promise<{ items: AnswerView[]; next_cursor: string | null }>;
}
