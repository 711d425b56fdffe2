import { EXAMPLE_EXPERTS, submitBody, type TestApp } from './build-test-app.js';
import { CONTRACT_PUBLIC_URL, type TestProvider } from './contract-app.js';
import { throughProvider } from './oidc-provider.js';

/** One valid call of an operation: what goes in its path, query, body and cookie. */
export interface Example {
  params?: Record<string, string>;
  query?: Record<string, string>;
  /** A JSON body; absent: none is sent. */
  body?: unknown;
  cookie?: string;
}

/**
 * Fresh records for examples to act on. Each call makes new ones, so an example that changes what it
 * is given (accepts a proposal, deletes a consumer) leaves the others theirs.
 */
export class Fixtures {
  private n = 0;
  constructor(
    private readonly t: TestApp,
    private readonly provider: TestProvider,
  ) {}

  private async ok(method: 'GET' | 'POST', url: string, body?: unknown) {
    const res = await this.t.call(method, url, body);
    if (res.status >= 300) throw new Error(`fixture ${method} ${url} answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body;
  }

  /** A request asked of Dana (`asked`). */
  async request(consumerId = 'billing-bot'): Promise<string> {
    const body = submitBody({ consumer_id: consumerId, target_experts: ['dana'], question: `What is the grace period for disputed invoices, case ${++this.n}?` });
    return (await this.ok('POST', '/api/v1/requests', body)).request_id;
  }

  /** A pending proposal: Dana answered a request. */
  async proposal(consumerId?: string): Promise<string> {
    const requestId = await this.request(consumerId);
    return (await this.ok('POST', '/api/v1/replies', { expert_id: 'dana', request_id: requestId, text: 'Thirty days from the invoice date.' })).proposal_id;
  }

  /** A request whose answer was accepted. */
  async acceptedRequest(): Promise<string> {
    const proposal = await this.ok('POST', `/api/v1/proposals/${await this.proposal()}/accept`, { decided_by: 'rita' });
    return proposal.request_id;
  }

  /** A webhook consumer (its hook points at a closed port: deliveries fail, which is fine here). */
  async consumer(extra: Record<string, unknown> = {}): Promise<string> {
    const id = `hook-${++this.n}`;
    await this.ok('POST', '/api/v1/consumers', { id, handles_kinds: ['answer'], delivery: { type: 'webhook', url: 'http://127.0.0.1:9/hook' }, ...extra });
    return id;
  }

  /** A delivery: an accepted answer for a webhook consumer. */
  async delivery(): Promise<string> {
    const consumer = await this.consumer();
    await this.ok('POST', `/api/v1/proposals/${await this.proposal(consumer)}/accept`, { decided_by: 'rita' });
    return (await this.ok('GET', `/api/v1/deliveries?consumer_id=${consumer}`)).items[0].id;
  }

  /** A library entry added by hand. */
  async answer(): Promise<string> {
    return (await this.ok('POST', '/api/v1/answers', curated(++this.n))).id;
  }

  /** The identity provider's way back to expertq: the callback's query and the sign-in cookie. */
  async signInCallback(): Promise<Example> {
    this.provider.signInAs('rita');
    const login = await this.t.app.inject({ method: 'GET', url: '/auth/login' });
    const callback = await throughProvider(login.headers.location as string, `${CONTRACT_PUBLIC_URL}/auth/callback`);
    const cookie = [login.headers['set-cookie'] ?? []].flat().map((line) => line.split(';')[0]!).find((pair) => pair.startsWith('expertq_login='))!;
    return { query: Object.fromEntries(callback.searchParams), cookie };
  }
}

const curated = (n: number) => ({ topic: 'billing', question: `How long do refunds take (${n})?`, answer: 'Five working days.', expert_id: 'dana' });

/**
 * A valid call of every operation in the OpenAPI document, by `operationId`. The contract test calls
 * each one (and wrong versions of it) and fails for an operation that has no entry here: a new route
 * adds its line.
 */
export const EXAMPLES: Record<string, (fx: Fixtures) => Example | Promise<Example>> = {
  getSignInSession: () => ({}),
  signIn: () => ({}),
  finishSignIn: (fx) => fx.signInCallback(),
  signOut: () => ({}),
  getMe: () => ({}),
  listSessions: () => ({}),
  revokeSessions: () => ({ query: { name: 'rita@acme.example' } }),

  submitRequest: () => ({ body: submitBody() }),
  listRequests: () => ({ query: { limit: '5' } }),
  getRequest: async (fx) => ({ params: { id: await fx.request() } }),
  waitForRequest: async (fx) => ({ params: { id: await fx.acceptedRequest() }, query: { timeout_s: '1' } }),
  cancelRequest: async (fx) => ({ params: { id: await fx.request() }, body: { cancelled_by: 'ops' } }),
  getAudit: async (fx) => ({ query: { request_id: await fx.request() } }),

  listProposals: () => ({ query: { status: 'pending' } }),
  getProposal: async (fx) => ({ params: { id: await fx.proposal() } }),
  acceptProposal: async (fx) => ({ params: { id: await fx.proposal() }, body: { decided_by: 'rita' } }),
  rejectProposal: async (fx) => ({ params: { id: await fx.proposal() }, body: { decided_by: 'rita', reason: 'Out of date.' } }),
  returnProposal: async (fx) => ({ params: { id: await fx.proposal() }, body: { decided_by: 'rita', instructions: 'Name the policy.' } }),
  getQueue: () => ({}),
  streamQueue: () => ({}),

  listExperts: () => ({}),
  replaceExperts: () => ({ body: EXAMPLE_EXPERTS }),
  listTopics: () => ({}),
  muteExpert: () => ({ params: { id: 'sam' }, body: { muted_by: 'ops' } }),
  unmuteExpert: () => ({ params: { id: 'sam' } }),
  setExpertAway: () => ({ params: { id: 'lee' }, body: { until: '3d', note: 'On holiday' } }),
  endExpertAway: () => ({ params: { id: 'lee' } }),
  receiveReply: async (fx) => ({ body: { expert_id: 'dana', request_id: await fx.request(), text: 'Thirty days.' } }),

  registerConsumer: () => ({ body: { id: 'ledger', handles_kinds: ['answer'], delivery: { type: 'webhook', url: 'http://127.0.0.1:9/hook' } } }),
  listConsumers: () => ({}),
  deleteConsumer: async (fx) => ({ params: { id: await fx.consumer() } }),
  listKinds: () => ({}),
  listDeliveries: () => ({ query: { limit: '5' } }),
  retryDelivery: async (fx) => ({ params: { id: await fx.delivery() } }),
  listInstances: () => ({}),

  listAnswers: () => ({ query: { q: 'refunds', limit: '5' } }),
  getAnswerStats: () => ({}),
  getInsights: () => ({ query: { group_by: 'week', from: '2026-01-05T00:00:00.000Z', to: '2026-03-02T00:00:00.000Z' } }),
  getAnswer: async (fx) => ({ params: { id: await fx.answer() } }),
  addAnswer: () => ({ body: curated(0) }),
  importAnswers: () => ({ body: { entries: [curated(-1), curated(-2)] } }),
  retireAnswer: async (fx) => ({ params: { id: await fx.answer() }, body: { decided_by: 'rita', reason: 'Refunds now take a day.' } }),
};

/** A wrong call only some operations can get, and the status it must answer. */
export interface Case {
  what: string;
  status: number;
  call: Example & { token?: string };
}

/** The answers a route gives for reasons of its own (a conflict, a quota), beside the ones every route shares. */
export const OWN_CASES: Record<string, (fx: Fixtures) => Promise<Case[]>> = {
  submitRequest: async (fx) => {
    const consumer = await fx.consumer({ max_requests_per_day: 1 });
    await fx.request(consumer);
    return [{ what: 'past the consumer’s daily quota', status: 429, call: { body: submitBody({ consumer_id: consumer, question: 'One more?' }) } }];
  },
  acceptProposal: async (fx) => [{ what: 'decided by the expert who answered', status: 409, call: { params: { id: await fx.proposal() }, body: { decided_by: 'dana' } } }],
  rejectProposal: async (fx) => [{ what: 'decided by the expert who answered', status: 409, call: { params: { id: await fx.proposal() }, body: { decided_by: 'dana', reason: 'No.' } } }],
  returnProposal: async (fx) => [
    { what: 'decided by the expert who answered', status: 409, call: { params: { id: await fx.proposal() }, body: { decided_by: 'dana', instructions: 'More.' } } },
    { what: 'without instructions', status: 400, call: { params: { id: await fx.proposal() }, body: { decided_by: 'rita' } } },
  ],
  receiveReply: async () => [{ what: 'from an expert with no open question', status: 404, call: { body: { expert_id: 'sam', text: 'Hello?' } } }],
  getAudit: async () => [{ what: 'of a request that does not exist', status: 404, call: { query: { request_id: 'req_nope' } } }],
  setExpertAway: async () => [{ what: 'standing in for themselves', status: 400, call: { params: { id: 'lee' }, body: { until: '3d', delegate_to: 'lee' } } }],
};
