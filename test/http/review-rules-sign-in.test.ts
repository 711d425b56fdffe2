import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/store.js';
import { submitBody, type TestApp } from '../support/build-test-app.js';
import { startTestProvider, type TestProvider } from '../support/oidc-provider.js';
import * as helpers from '../support/sign-in-app.js';
import { PUBLIC_URL, USERS } from '../support/sign-in-app.js';

let provider: TestProvider;
let t: TestApp<Store>;
beforeAll(async () => {
  provider = await startTestProvider(USERS, helpers.REDIRECT_URL);
});
afterAll(async () => provider?.close());
afterEach(async () => t?.close());

describe('review rules with sign-in', () => {
  it('a rule naming a group lets its signed-in members vote, and refuses other reviewers with the rule named', async () => {
    // Rita is in `staff` and `expertq-reviewers`; Ada (an admin) too in `staff`; Olly has no reviewer role.
    t = await helpers.signInApp(provider, { extra: { review: { admins_decide: false, rules: [{ name: 'reviewers group', match: { topics: ['billing'] }, reviewers: ['group:expertq-reviewers'], approvals: 1 }] } } });
    const requestId = (await t.call('POST', '/api/v1/requests', submitBody())).body.request_id as string;
    const proposalId = (await t.call('POST', '/api/v1/replies', { expert_id: 'dana', text: 'Thirty days.', request_id: requestId })).body.proposal_id as string;
    const decide = async (as: 'rita' | 'ada') => {
      const cookie = await helpers.signIn(t, provider, as);
      const res = await t.app.inject({ method: 'POST', url: `/api/v1/proposals/${proposalId}/accept`, headers: { cookie, origin: PUBLIC_URL }, payload: {} });
      return { status: res.statusCode, body: JSON.parse(res.body) };
    };
    const ada = await decide('ada');
    expect(ada.status).toBe(403);
    expect(ada.body.error.message).toMatch(/^This proposal is governed by the review rule "reviewers group": only its reviewers may decide it: group:expertq-reviewers\. ada@acme\.test is not one of them/);
    const rita = await decide('rita');
    expect(rita.body).toMatchObject({ status: 'accepted', decision: { decided_by: 'rita@acme.test' }, votes: [{ by: 'rita@acme.test' }], message: expect.stringMatching(/^Accepted: 1 of 1 approval /) });
  });
});
