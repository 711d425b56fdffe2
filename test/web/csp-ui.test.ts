import { describe, expect, it } from 'vitest';
import { card, HAVE_CHROMIUM, propose, signIn, TIMEOUT, useBrowserServer } from '../support/browser.js';
import { watchPolicy } from './watch-policy.js';

/** The approval UI under the server's Content-Security-Policy: every main page works and nothing is blocked. */
describe.runIf(HAVE_CHROMIUM)('approval UI under the Content-Security-Policy', { timeout: TIMEOUT }, () => {
  const served = useBrowserServer();
  const api = (method: string, path: string, body?: unknown) => served.api()(method, path, body);

  it('queue, a decision, requests, a request, answers and experts run with zero CSP violations', async () => {
    const pending = await propose(api, 'Which ledger takes refunds over 500 EUR?');
    const decided = await propose(api, 'Can invoices be reissued in USD?');
    await api('POST', `/proposals/${decided.proposalId}/accept`, { decided_by: 'alice' });

    const page = await served.page();
    const watch = await watchPolicy(page);
    const first = await page.goto(served.server.url);
    // The page really is served under the strict policy.
    const policy = first!.headers()['content-security-policy'] ?? '';
    expect(policy).toContain("default-src 'self'");
    expect(policy).toContain("style-src 'self'");
    expect(policy).not.toMatch(/unsafe-inline|unsafe-eval/);

    await signIn(page, served.server.url);
    await page.getByRole('heading', { name: 'Review queue', exact: true }).waitFor();
    const c = card(page, pending.question);
    await c.waitFor();
    // A decision with the name dialog, the keyboard shortcuts dialog and the copy button (hidden textarea).
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: served.server.url });
    await c.getByRole('button', { name: `Copy proposal id ${pending.proposalId}` }).click();
    await page.keyboard.press('?');
    await page.getByRole('dialog').first().waitFor();
    await page.keyboard.press('Escape');
    await c.getByRole('button', { name: 'Edit the answer before accepting' }).click();
    await c.getByLabel(/Answer to deliver/).fill('The refunds ledger, 4100.');
    await c.getByRole('button', { name: /^Accept edited/ }).click();
    await page.getByLabel('Your name').fill('Rita');
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect.poll(async () => (await api('GET', `/proposals/${pending.proposalId}`)).body.status).toBe('accepted');

    await page.getByRole('link', { name: 'Requests' }).click();
    await page.getByRole('link', { name: decided.question }).click();
    await page.getByRole('list', { name: 'Audit trail' }).waitFor();

    await page.getByRole('link', { name: 'Answers' }).click();
    await expect.poll(() => page.locator('li.answer-entry').count()).toBe(2);
    await page.getByRole('searchbox', { name: 'Search' }).fill('ledger');
    await expect.poll(() => page.locator('li.answer-entry').count()).toBe(1);

    await page.getByRole('link', { name: 'Experts' }).click();
    const sam = page.getByRole('row', { name: /Sam Okafor/ });
    await sam.getByRole('button', { name: 'Set Sam Okafor away…' }).click();
    await sam.getByRole('form', { name: 'Set Sam Okafor away' }).waitFor();

    expect(watch.violations).toEqual([]);
    expect(watch.consoleErrors).toEqual([]);

    // The watcher does see a violation: an inline style attribute is refused and reported.
    await page.evaluate(`document.body.insertAdjacentHTML('beforeend', '<p style="color: red">injected</p>')`);
    await expect.poll(() => watch.violations.length).toBe(1);
    expect(watch.violations[0]).toMatch(/^style-src-attr blocked inline/);
  });
});
