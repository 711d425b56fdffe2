import { describe, expect, it } from 'vitest';
import { card, HAVE_CHROMIUM, propose, screenshotPath, signIn, TIMEOUT, useBrowserServer } from '../support/browser.js';

/** A time as the UI prints it: date, time and the zone's name ("Nov 24, 2026, 4:10:07 AM UTC"). */
const WITH_ZONE = /\d{4}, \d{1,2}:\d\d:\d\d(\s?[AP]M)? (UTC|GMT([+-]\d{1,2}(:\d\d)?)?|[A-Z]{2,5})/;

/** The operator's side of the UI: history, ids, mute, the audit trail in words, and a server that is gone. */
describe.runIf(HAVE_CHROMIUM)('approval UI: requests page, ids, mute and outages', { timeout: TIMEOUT }, () => {
  const served = useBrowserServer();
  const api = (method: string, path: string, body?: unknown) => served.api()(method, path, body);

  async function signedIn() {
    const page = await served.page();
    await signIn(page, served.server.url);
    await expect.poll(() => page.getByRole('heading', { name: 'Review queue' }).count()).toBe(1);
    return page;
  }

  it('the Requests page finds finished requests by status, topic, consumer and text, with paging', async () => {
    const accepted = await propose(api, 'Which ledger takes refunds over 500 EUR?', { consumer: 'ledger-bot' });
    await api('POST', `/proposals/${accepted.proposalId}/accept`, { decided_by: 'alice' });
    const rejected = await propose(api, 'Can invoices be reissued in USD?', { consumer: 'ledger-bot' });
    await api('POST', `/proposals/${rejected.proposalId}/reject`, { decided_by: 'alice', reason: 'Wrong team.' });
    for (let i = 0; i < 26; i++) {
      const r = await api('POST', '/requests', { consumer_id: 'filler', topic: 'gardening', question: `Filler question ${i}?`, context: { asked_because: 'paging' } });
      expect(r.status).toBe(200);
    }

    const page = await signedIn();
    await page.getByRole('link', { name: 'Requests' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Requests', exact: true }).count()).toBe(1);
    const rows = page.locator('table.history tbody tr');
    await expect.poll(() => rows.count()).toBe(25);
    // Paging: the oldest requests are on page 2.
    await page.getByRole('button', { name: 'Older →' }).click();
    await expect.poll(() => page.getByText('Page 2', { exact: true }).count()).toBe(1);
    await expect.poll(() => page.locator('table.history').textContent()).toContain('Which ledger takes refunds over 500 EUR?');
    await page.getByRole('button', { name: '← Newer' }).click();
    await expect.poll(() => page.getByText('Page 1', { exact: true }).count()).toBe(1);

    await page.getByLabel('Status').selectOption('accepted');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain('Which ledger takes refunds over 500 EUR?');
    expect(page.url()).toContain('#/requests?status=accepted');
    expect(await rows.first().locator('time').textContent()).toMatch(WITH_ZONE);
    await page.screenshot({ path: screenshotPath('requests-desktop.png'), fullPage: true });

    await page.getByLabel('Status').selectOption('');
    await page.getByLabel('Question words').fill('usd');
    await page.getByLabel('Consumer').fill('ledger-bot');
    await page.getByLabel('Topic').fill('Billing');
    await page.getByRole('button', { name: 'Search' }).click();
    // The accepted row above is also a single row: wait for the new result, then count it.
    await expect.poll(() => rows.first().textContent()).toMatch(/rejected.*Can invoices be reissued in USD\?.*billing.*ledger-bot/);
    expect(await rows.count()).toBe(1);
    expect(page.url()).toContain('q=usd');

    await page.getByLabel('Question words').fill('no such question anywhere');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'No requests match these filters' }).count()).toBe(1);
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expect.poll(() => rows.count()).toBe(25);

    // A row opens the request: its audit trail reads as sentences, with times in a named zone.
    await page.getByLabel('Question words').fill('USD');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('link', { name: 'Can invoices be reissued in USD?' }).click();
    const trail = page.getByRole('list', { name: 'Audit trail' });
    await expect.poll(() => trail.textContent()).toMatch(/ledger-bot asked about topic “billing”\./);
    const text = (await trail.textContent()) ?? '';
    expect(text).toMatch(/Routed to .+ \(exact topic match\)\./);
    expect(text).toMatch(/replied: “Thirty days from the invoice date\.”/);
    expect(text).toMatch(/alice rejected the answer: “Wrong team\.”/);
    expect(await trail.locator('time').first().textContent()).toMatch(WITH_ZONE);
  });

  it('cards show the proposal and request ids with a working copy button', async () => {
    const proposed = await propose(api, 'Who signs off credit notes?');
    const page = await signedIn();
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: served.server.url });
    const c = card(page, proposed.question);
    await expect.poll(() => c.textContent()).toContain(proposed.proposalId);
    expect(await c.textContent()).toContain(proposed.requestId);
    await c.getByRole('button', { name: `Copy proposal id ${proposed.proposalId}` }).click();
    await expect.poll(() => c.getByRole('button', { name: `Copy proposal id ${proposed.proposalId}` }).textContent()).toBe('Copied');
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(proposed.proposalId);
    await c.getByRole('button', { name: `Copy request id ${proposed.requestId}` }).click();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(proposed.requestId);
    await api('POST', `/proposals/${proposed.proposalId}/accept`, { decided_by: 'alice' });
  });

  it('an admin mutes an expert after confirming (their open question passes on) and unmutes them', async () => {
    const submitted = await api('POST', '/requests', { consumer_id: 'ops', topic: 'on-call', question: 'Who holds the pager this weekend?', context: { asked_because: 'rota is stale' } });
    const page = await signedIn();
    await page.getByRole('link', { name: 'Experts' }).click();
    const sam = page.getByRole('row', { name: /Sam Okafor/ });
    await sam.getByRole('button', { name: 'Mute Sam Okafor…' }).click();
    await expect.poll(() => sam.getByRole('group', { name: 'Confirm muting Sam Okafor' }).textContent()).toMatch(/Mute Sam Okafor\? 1 open question will be passed on\./);
    await sam.getByRole('button', { name: 'Cancel' }).click();
    expect((await api('GET', '/experts')).body.find((e: { id: string }) => e.id === 'sam').muted).toBe(false);

    await sam.getByRole('button', { name: 'Mute Sam Okafor…' }).click();
    await sam.getByRole('button', { name: 'Mute', exact: true }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toMatch(/Sam Okafor is muted: no more questions until unmuted\. Their 1 open question was passed on\./);
    await expect.poll(() => sam.textContent()).toMatch(/muted/);
    await page.screenshot({ path: screenshotPath('experts-muted-desktop.png') });
    const request = (await api('GET', `/requests/${submitted.body.request_id}`)).body;
    expect(request.asks.map((a: { expert_id: string; state: string }) => [a.expert_id, a.state])).toEqual([['sam', 'skipped']]);

    await sam.getByRole('button', { name: 'Unmute Sam Okafor' }).click();
    await expect.poll(() => sam.textContent()).toMatch(/available/);
  });

  it('says unmistakably when the server cannot be reached, and recovers when it is back', async () => {
    const page = await signedIn();
    await expect.poll(() => page.getByText('Live', { exact: true }).count()).toBe(1);
    await served.stopServer();
    const banner = page.getByRole('alert').filter({ hasText: 'Cannot reach the expertq server' });
    await expect.poll(() => banner.count(), { timeout: 20_000 }).toBe(1);
    expect(await banner.textContent()).toMatch(WITH_ZONE);
    await page.screenshot({ path: screenshotPath('unreachable-desktop.png') });
    expect(await page.getByRole('heading', { name: 'Nothing pending' }).count()).toBe(0);
    await expect.poll(() => page.getByRole('heading', { name: 'Queue unknown' }).count()).toBe(1);
    // No count anywhere claims the queue is empty while nobody can know.
    expect(await page.getByText('0 pending').count()).toBe(0);
    expect(await page.getByLabel('pending: unknown, the server cannot be reached').textContent()).toBe('?');

    await served.startServer();
    await expect.poll(() => banner.count(), { timeout: 20_000 }).toBe(0);
    await expect.poll(() => page.getByRole('heading', { name: 'Nothing pending' }).count()).toBe(1);
  });
});
