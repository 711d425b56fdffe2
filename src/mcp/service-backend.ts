import { AppError } from '../errors.js';
import type { Caller } from '../http/auth.js';
import { decisionBy, deciderOf } from '../http/routes/proposals.js';
import { submitRequestBody } from '../wire/schemas.js';
import { actAsOwnConsumer, ownRequest } from '../http/scope.js';
import type { ExpertqService } from '../service/expertq-service.js';
import { mayPerform, OPERATION_WORDS, type Operation } from '../service/sessions/index.js';
import { proposalBody } from '../service/review/index.js';
import { McpToolError, type McpBackend } from './backend.js';

/**
 * The tools over `/mcp`, in the server's own process: the same service operations as the HTTP routes,
 * with the caller's token applied the same way (the role's operations, a consumer acting only as
 * itself and seeing only its own requests, a named token deciding under its name).
 */
export function serviceBackend(service: ExpertqService, caller: Caller): McpBackend {
  const allow = (operation: Operation) => {
    if (!mayPerform(caller.role, operation)) {
      throw new AppError('forbidden', `This token${caller.name ? ` (${caller.name})` : ''} has the ${caller.role} role, which may not ${OPERATION_WORDS[operation]}.`);
    }
  };
  const own = async (id: string) => ownRequest(caller, await service.getRequest(id));
  return withCodes({
    async submit(body) {
      allow('submit_request');
      const parsed = submitRequestBody.safeParse(body);
      if (!parsed.success) throw new AppError('bad_request', parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
      actAsOwnConsumer(caller, parsed.data.consumer_id, 'submit');
      return service.submitRequest(parsed.data);
    },
    async getRequest(id) {
      allow('read_request');
      return own(id);
    },
    async waitForDecision(id, timeoutMs, signal) {
      allow('read_request');
      await own(id);
      return service.waitForDecision(id, timeoutMs, signal);
    },
    async cancel(id) {
      allow('cancel_request');
      await own(id);
      return service.cancelRequest(id, `mcp:${caller.name ?? 'admin'}`);
    },
    async proposal(id) {
      allow('read_queue');
      return proposalBody(await service.getProposal(id));
    },
    async experts() {
      allow('read_experts');
      return service.listExperts();
    },
    async topics() {
      allow('read_topics');
      return service.listTopics();
    },
    async queue(mine) {
      allow('read_queue');
      // As GET /queue: what this caller may decide, as review rules see them.
      return service.queue({ decider: deciderOf(caller, caller.name ?? 'admin'), mine });
    },
    async decide(id, decision, body) {
      allow('decide');
      const outcome = await service.decideOrVote(id, decision === 'accept' ? 'accepted' : 'rejected', decisionBy(caller, body));
      return { ...(await service.reviewed([outcome.proposal]))[0]!, message: outcome.message };
    },
    async returnProposal(id, body) {
      allow('decide');
      return proposalBody(await service.returnProposal(id, decisionBy(caller, body)));
    },
    async searchAnswers(query) {
      allow('read_answers');
      return service.listAnswers({ consumer: caller.role === 'consumer' ? caller.name : null }, query);
    },
  });
}

/** Every method's AppError becomes a McpToolError with the same error code. */
function withCodes(backend: McpBackend): McpBackend {
  const wrapped: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(backend) as Array<[string, (...args: unknown[]) => Promise<unknown>]>) {
    wrapped[name] = async (...args: unknown[]) => {
      try {
        return await fn(...args);
      } catch (error) {
        if (error instanceof AppError) throw new McpToolError(error.code, error.message);
        throw error;
      }
    };
  }
  return wrapped as unknown as McpBackend;
}
