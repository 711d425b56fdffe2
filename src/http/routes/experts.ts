import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBody, expertView, idParams, muteBody, putAwayBody, putExpertsBody, topicView } from '../../wire/schemas.js';
import { LastBody, sendLastBody } from '../last-body.js';
import { checkedJson } from '../serialize-response.js';
import type { ExpertView } from '../../service/experts/index.js';
import type { RouteOptions } from './requests.js';

export const expertRoutes: FastifyPluginAsyncZod<RouteOptions> = async (app, { service }) => {
  const registry = z.array(expertView);
  const registryBody = new LastBody<ExpertView[]>(checkedJson(registry, 'GET', '/experts'));
  app.get('/experts', {
    schema: { operationId: 'listExperts', summary: 'The expert registry with live state', tags: ['experts'], response: { 200: registry } },
    // Checked and written once per distinct state of the registry (see LastBody); gzipped for a client
    // that takes it (the web UI refreshes this page every few seconds).
    handler: async (req, reply) => sendLastBody(req, reply, registryBody, await service.listExperts()),
  });

  app.get('/topics', {
    schema: {
      operationId: 'listTopics',
      summary: 'The topics questions can be asked about',
      description:
        'Every topic an expert takes or that has a fallback expert, with how many experts take it and how many could be asked this minute (not muted, not away, not at a limit, not in quiet hours). Any token may read it.',
      tags: ['experts'],
      response: { 200: z.array(topicView) },
    },
    handler: async () => service.listTopics(),
  });

  app.put('/experts', {
    schema: {
      operationId: 'replaceExperts',
      summary: 'Replace the whole registry and rewrite the experts section of the config file',
      description: 'A read-only config file (a mounted config map, for example) answers 409 naming the file; edit the file instead: the server reloads its experts when it changes.',
      tags: ['experts'],
      body: putExpertsBody,
      response: { 200: z.array(expertView), 409: errorBody },
    },
    handler: async (req) => service.replaceExperts(req.body),
  });

  app.post('/experts/:id/mute', {
    schema: {
      operationId: 'muteExpert',
      summary: 'Mute an expert: no more asks until unmuted; their open asks are passed on along the escalation chain',
      tags: ['experts'],
      params: idParams,
      body: muteBody,
      response: { 200: expertView },
    },
    // A named token mutes as itself; the unnamed admin token says who in `muted_by` (default "admin").
    handler: async (req) => service.muteExpert(req.params.id, req.caller.name ?? req.body?.muted_by ?? 'admin'),
  });

  app.put('/experts/:id/away', {
    schema: {
      operationId: 'setExpertAway',
      summary: 'Set an expert away until a time, with an optional delegate',
      description:
        'While away the expert is not asked. Their open and not yet sent questions pass on at once: to the delegate when the delegate can be asked now, else along the escalation chain. New questions that would have gone to them go to the delegate first. The spell ends by itself at `until`. Setting it again replaces the spell.',
      tags: ['experts'],
      params: idParams,
      body: putAwayBody,
      response: { 200: expertView },
    },
    handler: async (req) => service.setAway(req.params.id, req.body, `reviewer:${req.caller.name ?? 'admin'}`),
  });

  app.delete('/experts/:id/away', {
    schema: {
      operationId: 'endExpertAway',
      summary: 'End an expert’s away spell now',
      description: 'Questions waiting for the expert get their chance at once. An expert who is not away is left as they are (no error).',
      tags: ['experts'],
      params: idParams,
      response: { 200: expertView },
    },
    handler: async (req) => service.endAway(req.params.id, `reviewer:${req.caller.name ?? 'admin'}`),
  });

  app.post('/experts/:id/unmute', {
    schema: { operationId: 'unmuteExpert', summary: 'Clear an expert’s mute', tags: ['experts'], params: idParams, response: { 200: expertView } },
    handler: async (req) => service.unmuteExpert(req.params.id),
  });
};
