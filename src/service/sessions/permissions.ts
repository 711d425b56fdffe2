/**
 * Roles of scoped tokens (`server.tokens`); the main token is `admin`. `none` is a person signed in
 * through the identity provider who is in no reviewer or admin group: they may only ask who they are.
 */
export type Role = 'none' | 'consumer' | 'reviewer' | 'admin';

/**
 * What a caller can ask expertq to do, whatever the surface (HTTP, MCP): each surface says which
 * operation a call performs, and the role decides whether it may.
 */
export type Operation =
  | 'whoami'
  | 'submit_request'
  | 'list_requests'
  | 'read_request'
  | 'cancel_request'
  | 'register_consumer'
  | 'read_kinds'
  | 'read_topics'
  | 'read_queue'
  | 'decide'
  | 'read_experts'
  | 'read_audit'
  | 'use_mcp'
  | 'read_answers'
  | 'retire_answer'
  /** The library's figures across every consumer (entries by status, asks spared): reviewers and admins. */
  | 'read_answer_stats'
  /** The insights: what the service did, across every consumer and expert (reviewers and admins). */
  | 'read_insights'
  /** Everything else: the registry, mutes, replies on an expert's behalf, consumers' list, deliveries. */
  | 'administer';

/**
 * A consumer submits, reads and cancels its own requests and registers itself; a reviewer reads the
 * queue, requests, experts and audit and decides. Admin may do everything. Which requests are a
 * consumer's own is checked by the operation itself (a consumer sees only requests it submitted or is
 * subscribed to).
 */
const ROLE_OPERATIONS: Record<Exclude<Role, 'admin'>, ReadonlySet<Operation>> = {
  none: new Set<Operation>(['whoami']),
  consumer: new Set<Operation>(['whoami', 'submit_request', 'list_requests', 'read_request', 'cancel_request', 'register_consumer', 'read_kinds', 'read_topics', 'use_mcp', 'read_answers']),
  reviewer: new Set<Operation>(['whoami', 'list_requests', 'read_request', 'read_queue', 'decide', 'read_experts', 'read_audit', 'read_kinds', 'read_topics', 'use_mcp', 'read_answers', 'retire_answer', 'read_answer_stats', 'read_insights']),
};

export function mayPerform(role: Role, operation: Operation): boolean {
  return role === 'admin' || ROLE_OPERATIONS[role].has(operation);
}

/** An operation in words, for refusals ("… which may not decide proposals"). */
export const OPERATION_WORDS: Readonly<Record<Operation, string>> = {
  whoami: 'read its own identity',
  submit_request: 'submit requests',
  list_requests: 'list requests',
  read_request: 'read requests',
  cancel_request: 'cancel requests',
  register_consumer: 'register consumers',
  read_kinds: 'read kinds',
  read_topics: 'read topics',
  read_queue: 'read the review queue',
  decide: 'decide proposals',
  read_experts: 'read the experts',
  read_audit: 'read the audit',
  use_mcp: 'use MCP',
  read_answers: 'read the answer library',
  retire_answer: 'retire library entries',
  read_answer_stats: 'read the answer library\'s figures',
  read_insights: 'read the insights',
  administer: 'administer expertq',
};
