import type { DecidedProposal } from '../client/api.js';
import type { AnswerListQuery } from '../service/library/index.js';
import type { AcceptBody, Answer, Expert, Page, Proposal, QueueItem, RejectBody, RequestRecord, ReturnBody, SubmitRequestBody, SubmitResult, Topic } from '../wire/types.js';

export type ExpertItem = Expert;
export type QueueEntry = QueueItem;
export type TopicItem = Topic;

/** A failure a tool reports as an `isError` result with the API's error code (never a crash of the connection). */
export class McpToolError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** What `ask_expert` submits: the HTTP submit body. */
export type SubmitBody = SubmitRequestBody;

/** An accept or a reject, always with who decides (the tool fills in its default). */
export type DecisionBody = AcceptBody & Pick<Partial<RejectBody>, 'reason'> & { decided_by: string };

/**
 * What the MCP tools need from expertq. Two implementations: the running service in this process
 * (`/mcp`, with the caller's token role applied as the HTTP routes apply it) and the HTTP API of a
 * running server (`expertq mcp` over stdio, where the API applies it). The tools are defined once,
 * against this.
 */
export interface McpBackend {
  submit(body: SubmitBody): Promise<SubmitResult>;
  getRequest(id: string): Promise<RequestRecord>;
  /** The request once decided or failed, or at `timeoutMs` as it stands then. */
  waitForDecision(id: string, timeoutMs: number, signal: AbortSignal): Promise<RequestRecord>;
  cancel(id: string): Promise<RequestRecord>;
  proposal(id: string): Promise<Proposal>;
  experts(): Promise<ExpertItem[]>;
  topics(): Promise<TopicItem[]>;
  /** The proposals the caller may decide, with their votes; `mine`: only those still waiting for the caller's vote. */
  queue(mine: boolean): Promise<QueueEntry[]>;
  /** A decision, or under a review rule a vote: the proposal afterwards (still pending while votes are missing) and what happened, in words. */
  decide(id: string, decision: 'accept' | 'reject', body: DecisionBody): Promise<DecidedProposal>;
  returnProposal(id: string, body: ReturnBody & { decided_by: string }): Promise<Proposal>;
  searchAnswers(query: AnswerListQuery): Promise<Page<Answer>>;
}
