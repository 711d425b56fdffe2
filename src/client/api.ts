import type {
  AcceptBody,
  Answer,
  AnswerStats,
  AuditEntry,
  Expert,
  InstanceList,
  Me,
  MuteBody,
  Page,
  Proposal,
  PutAwayBody,
  QueueItem,
  RejectBody,
  RequestRecord,
  RetireBody,
  RevokeSessionsResult,
  ReturnBody,
  SessionList,
  SubmitRequestBody,
  SubmitResult,
  Topic,
} from '../wire/types.js';
import type { Call } from './http.js';

const at = (id: string) => encodeURIComponent(id);

/** The answer to an accept or reject: the proposal, and in words what happened and what remains (a vote under a review rule leaves it pending). */
export type DecidedProposal = Proposal & { message: string };

/** A query string of the given parameters, leaving out those that are unset. */
function query(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined) search.set(key, String(value));
  return search.toString();
}

/**
 * The API's operations, typed by the wire contract (src/wire): one method per call a client makes,
 * over any `Call` (the CLI's and the stdio MCP server's, or the web UI's with its sign-in cookie).
 */
export function expertqApi(call: Call) {
  return {
    me: () => call<Me>('GET', '/me'),

    submit: (body: SubmitRequestBody) => call<SubmitResult>('POST', '/requests', body),
    request: (id: string) => call<RequestRecord>('GET', `/requests/${at(id)}`),
    /** The request once decided or failed, or after `timeoutS` (1–50) as it stands then; with `changedFrom` (an `updated_at`), also as soon as it changed since. */
    waitForDecision: (id: string, timeoutS: number, changedFrom?: string) =>
      call<RequestRecord>('GET', `/requests/${at(id)}/wait?timeout_s=${timeoutS}${changedFrom ? `&changed_from=${at(changedFrom)}` : ''}`),
    cancel: (id: string) => call<RequestRecord>('POST', `/requests/${at(id)}/cancel`, {}),
    /** `GET /requests` with these filters (unset ones left out). */
    requests: (filters: Record<string, string | number | undefined>) => call<Page<RequestRecord>>('GET', `/requests?${query(filters)}`),
    audit: (requestId: string) => call<AuditEntry[]>('GET', `/audit?request_id=${at(requestId)}`),

    /** The proposals the caller may decide; `mine`: only those still waiting for the caller's vote. */
    queue: (mine = false) => call<QueueItem[]>('GET', mine ? '/queue?mine=true' : '/queue'),
    proposal: (id: string) => call<Proposal>('GET', `/proposals/${at(id)}`),
    accept: (id: string, body: AcceptBody) => call<DecidedProposal>('POST', `/proposals/${at(id)}/accept`, body),
    reject: (id: string, body: RejectBody) => call<DecidedProposal>('POST', `/proposals/${at(id)}/reject`, body),
    returnProposal: (id: string, body: ReturnBody) => call<Proposal>('POST', `/proposals/${at(id)}/return`, body),

    experts: () => call<Expert[]>('GET', '/experts'),
    topics: () => call<Topic[]>('GET', '/topics'),
    mute: (id: string, body: MuteBody) => call<Expert>('POST', `/experts/${at(id)}/mute`, body),
    unmute: (id: string) => call<Expert>('POST', `/experts/${at(id)}/unmute`),
    setAway: (id: string, body: PutAwayBody) => call<Expert>('PUT', `/experts/${at(id)}/away`, body),
    endAway: (id: string) => call<Expert>('DELETE', `/experts/${at(id)}/away`),

    /** `GET /answers` with these parameters (unset ones left out). */
    answers: (params: Record<string, string | number | undefined>) => call<Page<Answer>>('GET', `/answers?${query(params)}`),
    answerStats: () => call<AnswerStats>('GET', '/answers/stats'),
    retireAnswer: (id: string, body: RetireBody) => call<Answer>('POST', `/answers/${at(id)}/retire`, body),

    sessions: () => call<SessionList>('GET', '/sessions'),
    /** Ends every sign-in session of the person named exactly as `sessions()` lists them. */
    revokeSessions: (name: string) => call<RevokeSessionsResult>('DELETE', `/sessions?${query({ name })}`),
    instances: () => call<InstanceList>('GET', '/instances'),
  };
}

export type ExpertqApi = ReturnType<typeof expertqApi>;
