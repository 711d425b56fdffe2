import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ExpertqService } from '../../service/expertq-service.js';
import { identityOf, proposalBody, type Decider, type DecisionOutcome } from '../../service/review/index.js';
import { acceptBody, decidedProposal, errorBody, idParams, pendingQuery, proposal, rejectBody, returnBody } from '../../wire/schemas.js';
import { badRequest } from '../../errors.js';
import type { Caller } from '../auth.js';
import type { RouteOptions } from './requests.js';

/**
 * Who a decision is recorded under. A signed-in person decides as the name their identity provider
 * vouched for, and any name in the body is ignored. A named token decides as itself, and the body's
 * `decided_by` is kept only as a note of who typed it (`typed_by` in the audit), so a reviewer cannot
 * decide in someone else's name. The main admin token has no name: the body must say who decided.
 */
export function decisionBy<T extends { decided_by?: string | undefined }>(caller: Caller, body: T): T & { decided_by: string; typed_by?: string; decider: Decider } {
  if (caller.name !== null && caller.via === 'session') return { ...body, decided_by: caller.name, decider: deciderOf(caller, caller.name) };
  if (caller.name !== null) return { ...body, decided_by: caller.name, ...(body.decided_by !== undefined ? { typed_by: body.decided_by } : {}), decider: deciderOf(caller, caller.name) };
  if (body.decided_by === undefined) throw badRequest('decided_by is required: say who decides (a named token or a signed-in reviewer is recorded by name instead).', [{ path: 'decided_by', message: 'is required' }]);
  return { ...body, decided_by: body.decided_by, decider: deciderOf(caller, body.decided_by) };
}

/**
 * The caller as review rules see them: a signed-in person by their name and groups, a named token as
 * `token:<name>`, and the main admin token (or no authentication) by the `decided_by` it gives.
 */
export function deciderOf(caller: Caller, by: string): Decider {
  const admin = caller.role === 'admin';
  if (caller.name !== null && caller.via === 'session') return { by, identities: [identityOf(caller.name), ...(caller.groups ?? []).map((g) => `group:${g}`)], admin };
  if (caller.name !== null) return { by, identities: [`token:${caller.name}`], admin };
  // The main admin token is an admin, whoever it says decides; with authentication off, the name given is all there is.
  return { by, identities: caller.via === 'token' ? [] : [identityOf(by)], admin };
}

/** The answer to an accept or reject: the proposal with its votes, and what happened and what remains. */
async function decided(service: ExpertqService, outcome: DecisionOutcome) {
  return { ...(await service.reviewed([outcome.proposal]))[0]!, message: outcome.message };
}

export const proposalRoutes: FastifyPluginAsyncZod<RouteOptions> = async (app, { service }) => {
  app.get('/proposals', {
    schema: {
      operationId: 'listProposals',
      summary: 'The approval queue: pending proposals, oldest first',
      tags: ['proposals'],
      querystring: pendingQuery,
      response: { 200: z.array(proposal) },
    },
    handler: async () => service.reviewed(await service.listPendingProposals()),
  });

  app.get('/proposals/:id', {
    schema: { operationId: 'getProposal', summary: 'Read a proposal', tags: ['proposals'], params: idParams, response: { 200: proposal } },
    handler: async (req) => (await service.reviewed([await service.getProposal(req.params.id)]))[0]!,
  });

  app.post('/proposals/:id/accept', {
    schema: {
      operationId: 'acceptProposal',
      summary: 'Accept a pending proposal (no-op when already decided)',
      tags: ['proposals'],
      params: idParams,
      body: acceptBody,
      response: { 200: decidedProposal, 403: errorBody, 409: errorBody },
    },
    handler: async (req) => decided(service, await service.decideOrVote(req.params.id, 'accepted', decisionBy(req.caller, req.body))),
  });

  app.post('/proposals/:id/reject', {
    schema: {
      operationId: 'rejectProposal',
      summary: 'Reject a pending proposal with a reason (no-op when already decided)',
      tags: ['proposals'],
      params: idParams,
      body: rejectBody,
      response: { 200: decidedProposal, 403: errorBody, 409: errorBody },
    },
    handler: async (req) => decided(service, await service.decideOrVote(req.params.id, 'rejected', decisionBy(req.caller, req.body))),
  });

  app.post('/proposals/:id/return', {
    schema: {
      operationId: 'returnProposal',
      summary: 'Send a pending proposal back to its expert with instructions (no-op when already decided)',
      description: 'The proposal is withdrawn (rejected with reason `returned`; consumers are not told), the request goes back to `asked`, and the same expert is asked again with the instructions. An answer reused from the library has no expert to send it back to: the request is routed to an expert as if no library answer had matched (instructions optional), and that entry is not offered to it again.',
      tags: ['proposals'],
      params: idParams,
      body: returnBody,
      response: { 200: proposal, 403: errorBody, 409: errorBody },
    },
    handler: async (req) => proposalBody(await service.returnProposal(req.params.id, decisionBy(req.caller, req.body))),
  });
};
