import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, submitBody, type TestApp } from '../support/build-test-app.js';
import { cleanEnv, CLI_TEST_TIMEOUT_MS, jsonOf, runCli } from '../support/cli.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * Review rules from the command line: a two-person rule for security, decided by two scoped reviewer
 * tokens with the real `expertq` binary, against the app listening on a local port.
 */

const ADMIN = 'cli-rules-admin';
const SEC_1 = 'cli-rules-sec-one';
const SEC_2 = 'cli-rules-sec-two';
const BILLING = 'cli-rules-billing';
const credentials = [
  { name: 'Sec One', role: 'reviewer' as const, token: SEC_1 },
  { name: 'Sec Two', role: 'reviewer' as const, token: SEC_2 },
  { name: 'Bill Reviewer', role: 'reviewer' as const, token: BILLING },
];
const TWO_PERSON = { name: 'security', match: { topics: ['security'] }, reviewers: ['token:Sec One', 'token:Sec Two'], approvals: 2 };

let t: TestApp | undefined;
let receiver: WebhookReceiver | undefined;
let url = '';
let cwd = '';
beforeAll(() => {
  cwd = mkdtempSync(join(tmpdir(), 'expertq-cli-rules-'));
});
afterAll(() => rmSync(cwd, { recursive: true, force: true }));
afterEach(async () => {
  await t?.close();
  await receiver?.stop();
});

async function serve(): Promise<void> {
  t = await buildTestApp({ token: ADMIN, credentials, config: { server: { allow_private_webhooks: true }, review: { rules: [TWO_PERSON] } } });
  receiver = new WebhookReceiver();
  const hook = await receiver.start();
  expect((await t.call('POST', '/api/v1/consumers', { id: 'billing-bot', handles_kinds: ['answer'], delivery: { type: 'webhook', url: hook } })).status).toBe(201);
  url = await t.app.listen({ port: 0, host: '127.0.0.1' });
}

/** `expertq` as the holder of this token. */
const as = (token: string) => (...args: string[]) => runCli(['--url', url, ...args], { cwd, env: cleanEnv({ EXPERTQ_TOKEN: token }) });

/** A pending proposal on a question of this topic (security goes to Sam, billing to Dana). */
async function proposed(topic: 'security' | 'billing', question: string): Promise<string> {
  const requestId = (await t!.call('POST', '/api/v1/requests', submitBody({ topic, question }))).body.request_id as string;
  const reply = await t!.call('POST', '/api/v1/replies', { expert_id: topic === 'security' ? 'sam' : 'dana', text: 'Rotate the keys every 90 days.', request_id: requestId });
  expect(reply.body.proposal_id).toBeTruthy();
  return reply.body.proposal_id as string;
}

describe('expertq under a two-person review rule', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it('the first accept says "1 of 2" and the queue shows 1/2; the second reviewer’s accept delivers it once', async () => {
    await serve();
    const proposalId = await proposed('security', 'How often do we rotate the API keys?');

    const first = await as(SEC_1)('accept', proposalId);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toBe(`${proposalId}: Approval recorded: 1 of 2, waiting for a second reviewer.\n`);

    const queue = await as(SEC_2)('queue');
    expect(queue.code, queue.stderr).toBe(0);
    expect(queue.stdout).toContain(proposalId);
    expect(queue.stdout).toMatch(/^ {2}Votes: 1\/2 approvals \(Sec One accepted\); may still vote: token:Sec Two$/m);

    const queued = jsonOf<Array<{ proposal: { id: string; approvals_needed: number; votes: Array<{ by: string; decision: string }> } }>>(await as(SEC_2)('--json', 'queue'));
    expect(queued.find((i) => i.proposal.id === proposalId)!.proposal).toMatchObject({ approvals_needed: 2, votes: [{ by: 'Sec One', decision: 'accept' }] });

    // Sec One's vote is in: nothing waits for them; Sec Two's is missing.
    expect((await as(SEC_1)('queue', '--mine')).stdout.trim()).toBe('Nothing pending');
    expect((await as(SEC_2)('queue', '--mine')).stdout).toContain(proposalId);

    // Voting again changes nothing, and says so (exit 1, as a second accept of a decided proposal).
    const again = await as(SEC_1)('accept', proposalId);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/You already voted to accept this proposal; nothing changed\. 1 of 2, waiting for a second reviewer\./);

    const second = await as(SEC_2)('--json', 'accept', proposalId);
    const decided = jsonOf<{ status: string; message: string; votes: unknown[] }>(second);
    expect(decided).toMatchObject({ status: 'accepted', message: 'Accepted: 2 of 2 approvals under the review rule "security"; it is delivered.' });
    expect(decided.votes).toHaveLength(2);
    await receiver!.waitFor(1);
    expect(receiver!.events().filter((e) => e === 'proposal_accepted')).toHaveLength(1);
    expect((await as(SEC_2)('queue')).stdout.trim()).toBe('Nothing pending');
  });

  it('the decisive accept says the rule delivered it', async () => {
    await serve();
    const proposalId = await proposed('security', 'Who may read the audit log?');
    expect((await as(SEC_1)('accept', proposalId)).code).toBe(0);
    const second = await as(SEC_2)('accept', proposalId);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toBe(`${proposalId} is accepted (by Sec Two)\n  Accepted: 2 of 2 approvals under the review rule "security"; it is delivered.\n`);
  });

  it('a reviewer outside the rule does not see the proposal, and is refused with the rule named', async () => {
    await serve();
    const proposalId = await proposed('security', 'Do we pin TLS certificates?');
    const billingProposal = await proposed('billing', 'What is the grace period for disputed invoices?');

    const queue = await as(BILLING)('queue');
    expect(queue.stdout).toContain(billingProposal);
    expect(queue.stdout).not.toContain(proposalId);

    const refused = await as(BILLING)('accept', proposalId);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      'expertq: 403 forbidden: This proposal is governed by the review rule "security": only its reviewers may decide it: token:Sec One, token:Sec Two. Bill Reviewer is not one of them; nothing changed.\n',
    );
    const rejected = await as(BILLING)('reject', proposalId, '--reason', 'no');
    expect(rejected.stderr).toMatch(/403 forbidden: This proposal is governed by the review rule "security"/);
    expect((await t!.call('GET', `/api/v1/proposals/${proposalId}`)).body).toMatchObject({ status: 'pending', votes: [] });
  });

  it('a reject under the rule’s veto rejects at once and says why', async () => {
    await serve();
    const proposalId = await proposed('security', 'Is SSO required for contractors?');
    const rejected = await as(SEC_1)('reject', proposalId, '--reason', 'out of date');
    expect(rejected.code, rejected.stderr).toBe(0);
    expect(rejected.stdout).toBe(`${proposalId} is rejected (by Sec One: out of date)\n  Rejected: one rejection rejects under the review rule "security".\n`);
  });
});
