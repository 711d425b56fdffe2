import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { Workspace } from '../support/cli.js';
import { card, HAVE_CHROMIUM, propose, screenshotPath, signIn, TIMEOUT, useBrowserServer } from '../support/browser.js';
import { watchPolicy } from './watch-policy.js';

const SEC_ONE = 'ui-sec-one-token-5d1e';
const SEC_TWO = 'ui-sec-two-token-8b3f';
const BILL = 'ui-bill-token-2c7a';
const TWO_PERSON = { name: 'security', match: { topics: ['security'] }, reviewers: ['token:Sec One', 'token:Sec Two'], approvals: 2 };

/** Writes these review rules into the workspace's config (read when the server starts). */
function setRules(ws: Workspace, rules: unknown[]): void {
  const doc = parseDocument(readFileSync(ws.configFile, 'utf8'));
  doc.setIn(['review', 'rules'], rules);
  writeFileSync(ws.configFile, doc.toString());
}

/** The approval UI under review rules: votes on the card, the vote's answer, "waiting for my vote", refusals. */
describe.runIf(HAVE_CHROMIUM)('approval UI under review rules', { timeout: TIMEOUT }, () => {
  let workspace: Workspace | null = null;
  const served = useBrowserServer((ws) => {
    workspace = ws;
    const doc = parseDocument(readFileSync(ws.configFile, 'utf8'));
    doc.setIn(['server', 'tokens'], [
      { name: 'Sec One', token_env: 'SEC_ONE_TOKEN', role: 'reviewer' },
      { name: 'Sec Two', token_env: 'SEC_TWO_TOKEN', role: 'reviewer' },
      { name: 'Bill Reviewer', token_env: 'BILL_TOKEN', role: 'reviewer' },
    ]);
    writeFileSync(ws.configFile, doc.toString());
    setRules(ws, [TWO_PERSON]);
    writeFileSync(join(ws.dir, '.env'), `SEC_ONE_TOKEN=${SEC_ONE}\nSEC_TWO_TOKEN=${SEC_TWO}\nBILL_TOKEN=${BILL}\n`);
  });
  const api = (method: string, path: string, body?: unknown) => served.api()(method, path, body);

  it('two approvals: the first accept shows "1 of 2" and the card stays; the second reviewer’s accept delivers it and the card leaves', async () => {
    const security = await propose(api, 'How often are the signing keys rotated?', { topic: 'security', answer: 'Every 90 days.' });
    const billing = await propose(api, 'Which ledger takes refunds over 500 EUR?');

    const page = await served.page();
    const watch = await watchPolicy(page);
    await signIn(page, served.server.url, SEC_ONE);
    const first = card(page, security.question);
    await first.waitFor();
    const votes = first.getByRole('region', { name: 'Approvals' });
    await expect.poll(() => votes.textContent()).toMatch(/0 of 2 approvals/);

    // The first card is selected: `a` accepts it, by keyboard.
    await page.keyboard.press('a');
    await expect.poll(() => page.getByRole('status').first().textContent()).toMatch(/Approval recorded: 1 of 2, waiting for a second reviewer\./);
    await expect.poll(() => votes.textContent()).toMatch(/1 of 2 approvals.*Sec One accepted/s);
    expect(await first.count(), 'the card stays while it waits for a second reviewer').toBe(1);
    await first.screenshot({ path: screenshotPath('review-votes-1280.png') });
    expect((await api('GET', `/proposals/${security.proposalId}`)).body).toMatchObject({ status: 'pending', votes: [{ by: 'Sec One', decision: 'accept' }] });

    // "Waiting for my vote" (m): Sec One has voted on the security answer, not on the billing one.
    const mine = page.getByRole('button', { name: /Waiting for my vote/ });
    await page.keyboard.press('m');
    await expect.poll(() => mine.getAttribute('aria-pressed')).toBe('true');
    await expect.poll(() => first.count()).toBe(0);
    await expect.poll(() => card(page, billing.question).count()).toBe(1);
    expect(new URL(page.url()).hash).toBe('#/?mine=true');
    await page.keyboard.press('m');
    await expect.poll(() => first.count()).toBe(1);
    expect(await mine.getAttribute('aria-pressed')).toBe('false');

    // Readable on a phone: nothing scrolls sideways at 390 px.
    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(() => votes.isVisible()).toBe(true);
    await first.screenshot({ path: screenshotPath('review-votes-390.png') });
    expect(await page.evaluate('document.documentElement.scrollWidth > window.innerWidth'), 'the page scrolls sideways at 390 px').toBe(false);
    await page.setViewportSize({ width: 1280, height: 900 });

    // A second reviewer, in another tab with their own token.
    const other = await page.context().newPage();
    const otherWatch = await watchPolicy(other);
    await signIn(other, served.server.url, SEC_TWO);
    const second = card(other, security.question);
    await expect.poll(() => second.getByRole('region', { name: 'Approvals' }).textContent()).toMatch(/1 of 2 approvals.*Sec One accepted/s);
    await second.getByRole('button', { name: 'Accept', exact: true }).click();
    await expect.poll(() => other.getByRole('status').first().textContent()).toMatch(/Accepted: 2 of 2 approvals under the review rule "security"; it is delivered\./);
    await expect.poll(() => second.count()).toBe(0);
    // The first reviewer's page drops it too.
    await expect.poll(() => first.count()).toBe(0);
    expect((await api('GET', `/proposals/${security.proposalId}`)).body).toMatchObject({ status: 'accepted', decision: { decided_by: 'Sec Two' } });

    expect(watch.violations).toEqual([]);
    expect(watch.consoleErrors).toEqual([]);
    expect(otherWatch.violations).toEqual([]);
    expect(otherWatch.consoleErrors).toEqual([]);
  });

  it('a reviewer the rule does not name is refused with the rule’s words, and the card leaves their queue', async () => {
    const billing = await propose(api, 'Can invoices be reissued in USD?');
    const page = await served.page();
    // The page's clock stands still: it will not re-read the queue by itself while the rules change under it.
    await page.clock.install();
    await signIn(page, served.server.url, BILL);
    const c = card(page, billing.question);
    await c.waitFor();
    await page.clock.pauseAt(Date.now() + 60_000);

    // The billing answer comes under a rule Bill is not part of (read at the restart).
    await served.stopServer();
    setRules(workspace!, [TWO_PERSON, { name: 'finance', match: { topics: ['billing'] }, reviewers: ['token:Sec One'] }]);
    await served.startServer();

    await c.getByRole('button', { name: 'Accept', exact: true }).click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toMatch(
      /Could not accept .*This proposal is governed by the review rule "finance": only its reviewers may decide it: token:Sec One\. Bill Reviewer is not one of them; nothing changed\./,
    );
    // The queue, re-read after the refusal, no longer offers it.
    await expect.poll(() => c.count()).toBe(0);
    expect((await api('GET', `/proposals/${billing.proposalId}`)).body.status).toBe('pending');
  });
});
