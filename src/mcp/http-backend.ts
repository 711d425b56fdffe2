import { ClientError, type Client } from '../client/client.js';
import type { AnswerView } from '../service/library/index.js';
import type { SubmitResult, RequestView } from '../service/requests/index.js';
import type { ProposalBody } from '../service/review/index.js';
import { McpToolError, type ExpertItem, type McpBackend, type QueueEntry, type TopicItem } from './backend.js';

/**
 * The tools over stdio (`expertq mcp`): a thin client of the running server's HTTP API with the same
 * token as the CLI, so the server applies every rule and permission exactly as for any other client.
 */
export function httpBackend(client: Client): McpBackend {
  const call = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (error) {
      if (error instanceof ClientError) throw new McpToolError(error.code ?? 'unavailable', error.message.replace(/^\d{3} [a-z_]+: /, ''));
      throw error;
    }
  };
  const id = (value: string) => encodeURIComponent(value);
  return {
    submit: (body) => call(() => client.post<SubmitResult>('/requests', body)),
    getRequest: (requestId) => call(() => client.get<RequestView>(`/requests/${id(requestId)}`)),
    waitForDecision: (requestId, timeoutMs) =>
      call(() => client.get<RequestView>(`/requests/${id(requestId)}/wait?timeout_s=${Math.max(1, Math.min(50, Math.ceil(timeoutMs / 1000)))}`)),
    cancel: (requestId) => call(() => client.post<RequestView>(`/requests/${id(requestId)}/cancel`, {})),
    proposal: (proposalId) => call(() => client.get<ProposalBody>(`/proposals/${id(proposalId)}`)),
    experts: () => call(() => client.get<ExpertItem[]>('/experts')),
    topics: () => call(() => client.get<TopicItem[]>('/topics')),
    queue: () => call(() => client.get<QueueEntry[]>('/queue')),
    decide: (proposalId, decision, body) => call(() => client.post<ProposalBody>(`/proposals/${id(proposalId)}/${decision}`, body)),
    returnProposal: (proposalId, body) => call(() => client.post<ProposalBody>(`/proposals/${id(proposalId)}/return`, body)),
    searchAnswers: (query) => {
      const params = new URLSearchParams({ limit: String(query.limit), ...(query.q ? { q: query.q } : {}), ...(query.topic ? { topic: query.topic } : {}) });
      return call(() => client.get<{ items: AnswerView[]; next_cursor: string | null }>(`/answers?${params}`));
    },
  };
}
