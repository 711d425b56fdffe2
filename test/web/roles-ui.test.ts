import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { describe, expect, it } from 'vitest';
import { card, HAVE_CHROMIUM, propose, signIn, TIMEOUT, useBrowserServer } from '../support/browser.js';

const REVIEWER = 'ui-reviewer-token-7c2e';
const CONSUMER = 'ui-consumer-token-19ab';

/** The approval UI with scoped tokens: each role sees what it may do, and is told what it may not. */
describe.runIf(HAVE_CHROMIUM)('approval UI with scoped tokens', { timeout: TIMEOUT }, () => {
  const served = useBrowserServer((ws) => {
    const doc = parseDocument(readFileSync(ws.configFile, 'utf8'));
    doc.setIn(['server', 'tokens'], [
      { name: 'Riley Reviewer', token_env: 'RILEY_TOKEN', role: 'reviewer' },
      { name: 'billing-bot', token_env: 'BILLING_BOT_TOKEN', role: 'consumer' },
    ]);
    writeFileSync(ws.configFile, doc.toString());
    writeFileSync(join(ws.dir, '.env'), `RILEY_TOKEN=${REVIEWER}\nBILLING_BOT_TOKEN=${CONSUMER}\n`);
  });

  it('a reviewer token decides as its own name, without a name prompt, and cannot unmute', async () => {
    const api = served.api();
    const proposed = await propose(api, 'Which VAT rate applies to e-books?');
    await api('POST', '/replies', { expert_id: 'sam', text: 'mute' });
    const page = await served.page();
    await signIn(page, served.server.url, REVIEWER);
    await expect.poll(() => page.getByRole('banner').textContent()).toMatch(/Reviewing as Riley Reviewer \(reviewer token\)/);
    await card(page, proposed.question).getByRole('button', { name: 'Accept', exact: true }).click();
    await expect.poll(async () => (await api('GET', `/proposals/${proposed.proposalId}`)).body.decision?.decided_by).toBe('Riley Reviewer');

    await page.getByRole('link', { name: 'Experts' }).click();
    await expect.poll(() => page.getByText('an admin can unmute').count()).toBe(1);
    expect(await page.getByRole('button', { name: /^Unmute/ }).count()).toBe(0);
  });

  it('a consumer token is told it cannot review, instead of seeing an empty queue', async () => {
    const page = await served.page();
    await signIn(page, served.server.url, CONSUMER);
    await expect.poll(() => page.getByRole('heading', { name: 'This token cannot review' }).count()).toBe(1);
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/consumer token of billing-bot/);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => page.getByLabel('API token').count()).toBe(1);
  });
});
