import { describe, expect, it } from 'vitest';
import { HAVE_CHROMIUM, propose, screenshotPath, signIn, TIMEOUT, useBrowserServer } from '../support/browser.js';

/** The Answers page: the library searched as one types, filtered, paged, and entries retired with a reason. */
describe.runIf(HAVE_CHROMIUM)('approval UI: the Answers page', { timeout: TIMEOUT }, () => {
  const served = useBrowserServer();
  const api = (method: string, path: string, body?: unknown) => served.api()(method, path, body);

  it('search finds an entry, best match first with its score; retiring it with a reason takes it out of the active answers', async () => {
    const accepted = await propose(api, 'How long is the refund window for annual plans?', { answer: 'Thirty days from the invoice date.' });
    await api('POST', `/proposals/${accepted.proposalId}/accept`, { decided_by: 'alice' });
    const faq = [
      { topic: 'billing', question: 'Can a refund be split across two invoices?', answer: 'Yes, one refund per invoice.', expert_id: 'lee' },
      { topic: 'payments', question: 'Which currency do payouts use?', answer: 'Euros.', expert_id: 'lee', verified_at: '2020-01-01T00:00:00.000Z' },
      ...Array.from({ length: 20 }, (_, i) => ({ topic: 'billing', question: `Filler question ${i}?`, answer: `Filler answer ${i}.`, expert_id: 'dana' })),
    ];
    expect((await api('POST', '/answers/import', { entries: faq })).status).toBe(201);

    const page = await served.page();
    await signIn(page, served.server.url);
    await page.getByRole('link', { name: 'Answers' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Answers', exact: true }).count()).toBe(1);
    const figures = page.locator('.library-stats');
    await expect.poll(() => figures.textContent()).toMatch(/Asks spared\s*0.*Active\s*22.*Stale\s*1.*Retired\s*0/);

    // Active entries, newest first, 20 a page; "More" brings the rest.
    const entries = page.locator('li.answer-entry');
    await expect.poll(() => entries.count()).toBe(20);
    await page.getByRole('button', { name: 'More' }).click();
    await expect.poll(() => entries.count()).toBe(22);
    expect(await page.getByRole('button', { name: 'More' }).count()).toBe(0);

    // Typing searches (no button): the entry with both words first, each with a score.
    await page.getByRole('searchbox', { name: 'Search' }).fill('refund window');
    await expect.poll(() => entries.count()).toBe(2);
    const first = entries.first();
    expect(await first.getByRole('heading').textContent()).toBe('How long is the refund window for annual plans?');
    expect(await first.textContent()).toMatch(/#1.*billing.*score \d+\.\d+/);
    expect(await first.textContent()).toMatch(/Dana Smith answered.*Thirty days from the invoice date\..*Reused\s*0 times/);
    await expect.poll(() => page.url()).toContain('#/answers?q=refund+window');
    await page.screenshot({ path: screenshotPath('answers-desktop.png'), fullPage: true });

    // Retire needs a reason; the first Retire press only says so.
    await first.getByRole('button', { name: /^Retire “How long is the refund window/ }).click();
    // The reason field takes the focus: the keyboard goes on from there.
    await expect.poll(() => first.getByLabel(/Why retire it/).evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
    await first.getByRole('button', { name: 'Retire', exact: true }).click();
    await expect.poll(() => first.getByRole('alert').textContent()).toMatch(/Say why/);
    await first.getByLabel(/Why retire it/).fill('Annual plans now have 45 days.');
    await page.keyboard.press('Enter');
    // The unnamed admin token is asked once who decides.
    await page.getByLabel('Your name').fill('Rita');
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect.poll(() => entries.count()).toBe(1);
    expect(await entries.first().getByRole('heading').textContent()).toBe('Can a refund be split across two invoices?');
    await expect.poll(() => page.locator('.flash').textContent()).toMatch(/Retired: “How long is the refund window for annual plans\?”/);
    await expect.poll(() => figures.textContent()).toMatch(/Active\s*21.*Retired\s*1/);

    const retired = (await api('GET', '/answers?status=retired')).body.items;
    expect(retired).toEqual([expect.objectContaining({ request_id: accepted.requestId, retired: expect.objectContaining({ by: 'Rita', reason: 'Annual plans now have 45 days.' }) })]);

    // The retired entry is still there under "retired", with who and why; stale entries are marked.
    await page.getByLabel('Status').selectOption('retired');
    await expect.poll(() => entries.first().textContent()).toMatch(/retired.*Retired\s*by Rita.*Annual plans now have 45 days\./);
    expect(await entries.count()).toBe(1);
    expect(await entries.first().getByRole('button', { name: /^Retire/ }).count()).toBe(0);
    await page.getByRole('searchbox', { name: 'Search' }).fill('');
    await page.getByLabel('Status').selectOption('stale');
    await expect.poll(() => entries.first().textContent()).toMatch(/Which currency do payouts use\?.*stale: not offered until verified again/);
    expect(await entries.count()).toBe(1);
  });
});
