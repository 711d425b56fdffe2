import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { apiFor, card, HAVE_CHROMIUM, openBrowser, propose, screenshotPath, signIn, TIMEOUT, type Proposed } from '../support/browser.js';
import { FakeLlm, fakeDraft } from '../support/fake-llm.js';
import { cleanEnv, loggedErrors, makeWorkspace, ROOT, serveWorkspace, startServe, TEST_TOKEN, type ServerProcess, type Workspace } from '../support/cli.js';

/**
 * The approval UI in a real browser (Debian's chromium, driven by playwright-core) against a real
 * `expertq serve` child process: sign in, work the queue with the mouse and with the keyboard alone,
 * and check the API agrees. Never downloads a browser.
 */

describe.runIf(HAVE_CHROMIUM)('approval UI in Chromium', { timeout: TIMEOUT }, () => {
  let ws: Workspace;
  let server: ServerProcess;
  let api: ReturnType<typeof apiFor>;
  let browser: Awaited<ReturnType<typeof openBrowser>> | null = null;

  beforeAll(async () => {
    ws = await makeWorkspace();
    server = await serveWorkspace(ws);
    api = apiFor(server);
  });

  afterEach(async () => {
    await browser?.close();
    browser = null;
  });

  afterAll(async () => {
    await server?.stop();
    if (server) expect(loggedErrors(server.stdout())).toEqual([]);
    ws?.remove();
  });

  it('signs in, shows each proposal in full, accepts one and rejects another (only with a reason)', async () => {
    const grace = await propose(api, 'What is the grace period for disputed invoices?');
    const rollback = await propose(api, 'Can we roll back a Kubernetes deployment without downtime?', {
      topic: 'kubernetes', because: 'the deploy pipeline has no documented rollback step', consumer: 'deploy-agent',
      answer: 'Yes: kubectl rollout undo keeps the old ReplicaSet serving until the new pods are ready.',
    });

    browser = await openBrowser();
    const { page } = browser;
    await page.goto(server.url);
    await page.getByRole('heading', { name: 'Sign in to the review queue' }).waitFor();
    await page.getByLabel('API token').fill(TEST_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Review queue', exact: true }).waitFor();

    // The token is in this tab's sessionStorage only, never in localStorage or the URL.
    expect(await page.evaluate('sessionStorage.getItem("expertq.token")')).toBe(TEST_TOKEN);
    expect(await page.evaluate('JSON.stringify(localStorage)')).not.toContain(TEST_TOKEN);
    expect(page.url()).not.toContain(TEST_TOKEN);

    // Everything a reviewer needs, per proposal.
    const first = card(page, grace.question);
    await first.waitFor();
    for (const text of ['billing', 'billing-bot', 'the invoice total does not match the ledger', 'Dana Smith', 'Thirty days from the invoice date.', 'Structured', 'Confidence', 'not rated (no LLM)', 'just now']) {
      expect(await first.textContent(), text).toContain(text);
    }
    expect(await first.locator('time').getAttribute('datetime')).toMatch(/Z$/);
    const second = card(page, rollback.question);
    expect(await second.textContent()).toContain('deploy-agent');
    expect(await second.textContent()).toContain('Sam Okafor');

    // A new proposal appears without a reload.
    const refunds = await propose(api, 'Who approves refunds above 500 EUR?', {
      topic: 'refunds', because: 'a customer asks for a 720 EUR refund and the policy page is silent', consumer: 'support-bot',
      answer: 'The finance lead, Maria; anything above 2,000 EUR also needs the CFO.',
    });
    await card(page, refunds.question).waitFor();
    await page.getByText('3 pending').waitFor();
    await page.getByText('Live', { exact: true }).waitFor();
    await page.screenshot({ path: screenshotPath('queue-desktop.png'), fullPage: true });
    // The README's screenshot is refreshed on request only, so a test run leaves the work tree clean.
    if (process.env.UPDATE_DOCS_SCREENSHOT === '1') copyFileSync(screenshotPath('queue-desktop.png'), join(ROOT, 'docs', 'review-queue.png'));

    // Accept with a note: the name is asked for once.
    await first.getByLabel(/^Note/).fill('checked against the 2026 billing policy');
    await first.getByRole('button', { name: /^Accept/ }).click();
    const nameDialog = page.getByRole('dialog', { name: 'Who is reviewing?' });
    await nameDialog.waitFor();
    await nameDialog.getByLabel('Your name').fill('Alice Reviewer');
    await nameDialog.getByRole('button', { name: 'Continue' }).click();
    await first.waitFor({ state: 'detached' });
    await page.getByRole('status').getByText(`Accepted: ${grace.question}`).waitFor();

    // Reject: refused without a reason, and nothing is sent.
    await second.getByRole('button', { name: /^Reject/ }).click();
    const reason = second.getByLabel(/^Reason for rejecting/);
    expect(await reason.evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
    await second.getByRole('button', { name: 'Reject', exact: true }).click();
    await second.getByRole('alert').getByText('A reason is required to reject').waitFor();
    expect(await reason.getAttribute('aria-invalid')).toBe('true');
    expect((await api('GET', `/proposals/${rollback.proposalId}`)).body.status).toBe('pending');
    await reason.fill('rollout undo is not safe with our database migrations');
    await second.getByRole('button', { name: 'Reject', exact: true }).click();
    await second.waitFor({ state: 'detached' });

    await expect.poll(async () => (await api('GET', `/proposals/${grace.proposalId}`)).body).toMatchObject({
      status: 'accepted',
      decision: { decided_by: 'Alice Reviewer', note: 'checked against the 2026 billing policy', reason: null },
    });
    await expect.poll(async () => (await api('GET', `/proposals/${rollback.proposalId}`)).body).toMatchObject({
      status: 'rejected',
      decision: { decided_by: 'Alice Reviewer', reason: 'rollout undo is not safe with our database migrations' },
    });
    expect((await api('GET', `/requests/${grace.requestId}`)).body.status).toBe('accepted');
    expect((await api('GET', `/requests/${rollback.requestId}`)).body.status).toBe('rejected');

    // The request view: state and audit trail, reachable from the proposal card.
    await card(page, refunds.question).getByRole('link', { name: /Request and audit trail/ }).click();
    const view = page.locator('.request-view');
    await view.getByRole('heading', { name: refunds.question }).waitFor();
    await view.getByText('proposed', { exact: true }).first().waitFor();
    const trail = view.getByRole('list', { name: 'Audit trail' });
    // Each row in words, in order.
    await expect.poll(() => trail.textContent()).toMatch(/asked about topic “refunds”\..*Routed to .*Asked .*replied: “.*The answer became proposal prop_\w+, waiting for review\./s);
    await page.screenshot({ path: screenshotPath('request-desktop.png'), fullPage: true });

    // A decision made elsewhere (here: the API) leaves the queue live; then the empty state.
    await page.keyboard.press('Escape');
    await card(page, refunds.question).waitFor();
    await api('POST', `/proposals/${refunds.proposalId}/accept`, { decided_by: 'bob' });
    await page.getByRole('heading', { name: 'Nothing pending' }).waitFor();

    // The accepted request's trail ends with the decision by name.
    await page.goto(`${server.url}/#/requests/${grace.requestId}`);
    const accepted = page.locator('.request-view');
    await accepted.getByText('Accepted by').waitFor();
    expect(await accepted.textContent()).toContain('Alice Reviewer');
    await expect.poll(() => accepted.getByRole('list', { name: 'Audit trail' }).textContent()).toMatch(/Alice Reviewer accepted the answer, noting “checked against the 2026 billing policy”\./);
    await page.screenshot({ path: screenshotPath('request-accepted-desktop.png'), fullPage: true });
  });

  it('a wrong token brings the prompt back with a message; so does a 401 later on', async () => {
    browser = await openBrowser();
    const { page } = browser;
    await signIn(page, server.url, 'not-the-token');
    await page.getByRole('alert').getByText(/not accepted \(401 Unauthorized\)/).waitFor();
    await page.getByLabel('API token').waitFor();
    expect(await page.evaluate('sessionStorage.getItem("expertq.token")')).toBeNull();
    await page.screenshot({ path: screenshotPath('sign-in-refused.png') });

    // Signed in, then the server starts refusing (say, the token was rotated): back to the prompt.
    await page.getByLabel('API token').fill(TEST_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Review queue', exact: true }).waitFor();
    await page.route('**/api/v1/experts', (route) =>
      route.fulfill({ status: 401, contentType: 'application/json', body: JSON.stringify({ error: { code: 'unauthorized', message: 'no' } }) }),
    );
    await page.getByRole('link', { name: 'Experts' }).click();
    await page.getByRole('alert').getByText(/refused the token \(401 Unauthorized\)/).waitFor();
    await page.getByLabel('API token').waitFor();
    expect(await page.evaluate('sessionStorage.getItem("expertq.token")')).toBeNull();
  });

  it('clears a queue of 20 proposals with the keyboard alone (j/k/a/r/?)', async () => {
    const topics = ['billing', 'payments', 'deployments', 'kubernetes', 'on-call'];
    const proposals: Proposed[] = [];
    for (let i = 1; i <= 20; i++) {
      proposals.push(await propose(api, `Keyboard question ${String(i).padStart(2, '0')}: which runbook covers case ${i}?`, {
        topic: topics[i % topics.length]!, answer: `Runbook ${i}, section ${(i % 4) + 1}.`,
      }));
    }

    browser = await openBrowser();
    const { page } = browser;
    await page.goto(server.url);
    // The token field has focus on load: type and press Enter.
    await expect.poll(() => page.evaluate('document.activeElement?.id')).toBe('token');
    await page.keyboard.type(TEST_TOKEN);
    await page.keyboard.press('Enter');
    await page.getByText('20 pending').waitFor();
    const selected = page.locator('article.proposal[aria-current="true"]');
    const selectedQuestion = async () => (await selected.locator('h2').textContent()) ?? '';

    // ? lists the shortcuts; Escape closes the list.
    await page.keyboard.press('?');
    const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await help.waitFor();
    for (const does of ['Next proposal', 'Previous proposal', 'Accept the selected proposal', 'Reject: type the reason']) await help.getByText(does).waitFor();
    await page.keyboard.press('Escape');
    await help.waitFor({ state: 'hidden' });

    // j/k move the selection, and focus with it (what a screen reader follows).
    expect(await selectedQuestion()).toBe(proposals[0]!.question);
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    expect(await selectedQuestion()).toBe(proposals[2]!.question);
    expect(await selected.evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
    await page.keyboard.press('k');
    await page.keyboard.press('k');
    expect(await selectedQuestion()).toBe(proposals[0]!.question);

    // r focuses the reason; Enter with none is refused; Escape cancels.
    await page.keyboard.press('r');
    const reason = selected.getByLabel(/^Reason for rejecting/);
    await reason.waitFor();
    expect(await reason.evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
    await page.keyboard.press('Enter');
    await selected.getByText('A reason is required to reject').waitFor();
    await page.keyboard.press('Escape');
    await reason.waitFor({ state: 'detached' });

    // The first decision asks for the reviewer's name once; the dialog is keyboard-operable too.
    await page.keyboard.press('a');
    await page.getByRole('dialog', { name: 'Who is reviewing?' }).waitFor();
    await page.keyboard.type('Kim Keys');
    await page.keyboard.press('Enter');
    await card(page, proposals[0]!.question).waitFor({ state: 'detached' });

    // Then the rest as fast as the keys go: every 4th rejected with a reason, the others accepted.
    const started = performance.now();
    for (let i = 1; i < 20; i++) {
      if (i % 4 === 3) {
        await page.keyboard.press('r');
        await page.keyboard.type('too vague');
        await page.keyboard.press('Enter');
      } else {
        await page.keyboard.press('a');
      }
    }
    await page.getByRole('heading', { name: 'Nothing pending' }).waitFor();
    await expect.poll(async () => (await api('GET', '/proposals?status=pending')).body, { timeout: 15_000 }).toEqual([]);
    const seconds = (performance.now() - started) / 1000;
    writeFileSync(screenshotPath('keyboard-timing.txt'), `19 proposals after the first cleared with the keyboard alone in ${seconds.toFixed(2)} s\n`);
    console.log(`keyboard: 19 proposals decided in ${seconds.toFixed(2)} s (20 with the name prompt)`);

    for (const [i, p] of proposals.entries()) {
      const { body } = await api('GET', `/proposals/${p.proposalId}`);
      if (i % 4 === 3) expect(body, p.question).toMatchObject({ status: 'rejected', decision: { decided_by: 'Kim Keys', reason: 'too vague' } });
      else expect(body, p.question).toMatchObject({ status: 'accepted', decision: { decided_by: 'Kim Keys', note: null } });
    }
  });

  it('works on a phone-sized screen; the experts view shows live state and unmutes', async () => {
    const phone = await propose(api, 'Is the EU VAT rate applied to Swiss customers?', {
      because: 'an invoice for a Zurich customer shows 19% VAT', consumer: 'billing-bot', answer: 'No: Swiss customers are invoiced without EU VAT.',
    });
    // Sam is asked and answers `mute`: muted until someone unmutes him.
    const asked = await api('POST', '/requests', {
      consumer_id: 'deploy-agent', topic: 'deployments', question: 'Who owns the staging cluster?', context: { asked_because: 'staging is down' },
      routing_policy: { max_open_asks_per_expert: 100, max_asks_per_expert_per_day: 100 },
    });
    const muted = await api('POST', '/replies', { expert_id: 'sam', text: 'mute', request_id: asked.body.request_id });
    expect(muted.body.outcome).toBe('muted');

    browser = await openBrowser({ width: 390, height: 844 });
    const { page } = browser;
    await signIn(page, server.url);
    const phoneCard = card(page, phone.question);
    await phoneCard.waitFor();
    // Nothing overflows sideways at 390 px.
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    const accept = await phoneCard.getByRole('button', { name: /^Accept/ }).boundingBox();
    expect(accept!.height).toBeGreaterThanOrEqual(40); // a comfortable touch target
    await page.screenshot({ path: screenshotPath('queue-phone.png'), fullPage: true });

    await page.getByRole('link', { name: 'Experts' }).click();
    const sam = page.getByRole('row', { name: /Sam Okafor/ });
    await sam.getByText('muted').waitFor();
    await page.screenshot({ path: screenshotPath('experts-phone.png'), fullPage: true });
    await sam.getByRole('button', { name: 'Unmute Sam Okafor' }).click();
    await sam.getByText('available').waitFor();
    await expect.poll(async () => (await api('GET', '/experts')).body.find((e: { id: string }) => e.id === 'sam').muted).toBe(false);
    const danaToday = await page.getByRole('row', { name: /Dana Smith/ }).locator('td[data-label="Asks today"]').textContent();
    expect(Number(danaToday)).toBe((await api('GET', '/experts')).body.find((e: { id: string }) => e.id === 'dana').asks_today);

    await page.setViewportSize({ width: 1280, height: 800 });
    await page.screenshot({ path: screenshotPath('experts-desktop.png'), fullPage: true });
    await api('POST', `/proposals/${phone.proposalId}/accept`, { decided_by: 'bob' });
  });
});

describe.runIf(HAVE_CHROMIUM)('approval UI with authentication disabled', { timeout: TIMEOUT }, () => {
  let ws: Workspace;
  let server: ServerProcess;

  beforeAll(async () => {
    ws = await makeWorkspace();
    server = await startServe(ws.configFile, cleanEnv());
  });

  afterAll(async () => {
    await server?.stop();
    ws?.remove();
  });

  it('shows the queue without asking for a token', async () => {
    const api = apiFor(server, null);
    const p = await propose(api, 'Which currency do refunds use?', { answer: 'The original payment currency.' });
    const browser = await openBrowser();
    try {
      await browser.page.goto(server.url);
      await card(browser.page, p.question).waitFor();
      expect(await browser.page.getByLabel('API token').count()).toBe(0);
      expect(await browser.page.getByRole('button', { name: 'Sign out' }).count()).toBe(0);
    } finally {
      await browser.close();
    }
  });
});

describe.runIf(HAVE_CHROMIUM)('approval UI with an LLM', { timeout: TIMEOUT }, () => {
  let ws: Workspace;
  let server: ServerProcess;
  let fake: FakeLlm;

  beforeAll(async () => {
    fake = new FakeLlm();
    await fake.start();
    ws = await makeWorkspace();
    const doc = parseDocument(readFileSync(ws.configFile, 'utf8'));
    doc.set('llm', { model: 'fake-model-1', base_url: fake.url, timeout: '10s' });
    writeFileSync(ws.configFile, doc.toString());
    server = await serveWorkspace(ws);
  });

  afterAll(async () => {
    await server?.stop();
    await fake?.close();
    ws?.remove();
  });

  it('shows the drafted question beside the raw one, and the structured answer with its confidence', async () => {
    const api = apiFor(server);
    const question = 'What is the grace period for disputed invoices?';
    const drafted = fakeDraft({ question });
    const submitted = await api('POST', '/requests', { consumer_id: 'billing-bot', topic: 'billing', question, context: { asked_because: 'the ledger is off' } });
    const requestId: string = submitted.body.request_id;
    await expect.poll(async () => (await api('GET', `/requests/${requestId}`)).body.status).toBe('asked');
    const reply = await api('POST', '/replies', { expert_id: 'dana', text: 'Thirty days.', request_id: requestId });
    await expect.poll(async () => (await api('GET', `/proposals/${reply.body.proposal_id}`)).status).toBe(200);

    const browser = await openBrowser();
    try {
      const { page } = browser;
      await signIn(page, server.url);
      const item = card(page, question);
      await item.waitFor();
      expect(await item.locator('.asked-as').textContent()).toBe(`Asked the expert as ${drafted}`);
      expect(await item.locator('.structured pre').textContent()).toContain('"summary": "Thirty days."');
      expect(await item.locator('.fact', { hasText: 'Confidence' }).locator('dd').textContent()).toBe('90%');

      await page.goto(`${server.url}/#/requests/${requestId}`);
      await page.getByRole('heading', { name: question, exact: true }).waitFor();
      expect(await page.locator('.details dd').first().textContent()).toBe(drafted);
    } finally {
      await browser.close();
    }
  });
});
