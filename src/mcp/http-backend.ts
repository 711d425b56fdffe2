import { ClientError, type Client } from '../client/client.js';
import { McpToolError, type McpBackend } from './backend.js';

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
  const { api } = client;
  return {
    submit: (body) => call(() => api.submit(body)),
    getRequest: (requestId) => call(() => api.request(requestId)),
    waitForDecision: (requestId, timeoutMs) => call(() => api.waitForDecision(requestId, Math.max(1, Math.min(50, Math.ceil(timeoutMs / 1000))))),
    cancel: (requestId) => call(() => api.cancel(requestId)),
    proposal: (proposalId) => call(() => api.proposal(proposalId)),
    experts: () => call(() => api.experts()),
    topics: () => call(() => api.topics()),
    queue: (mine) => call(() => api.queue(mine)),
    decide: (proposalId, decision, body) => call(() => (decision === 'accept' ? api.accept(proposalId, body) : api.reject(proposalId, { ...body, reason: body.reason! }))),
    returnProposal: (proposalId, body) => call(() => api.returnProposal(proposalId, body)),
    searchAnswers: (query) => call(() => api.answers({ limit: query.limit, q: query.q || undefined, topic: query.topic || undefined })),
  };
}
