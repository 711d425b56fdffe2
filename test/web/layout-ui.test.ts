import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { HAVE_CHROMIUM, propose, screenshotPath, signIn, TIMEOUT, useBrowserServer } from '../support/browser.js';

/** What the UI shows before data arrives, how the Requests table uses a laptop screen, and why a request waits. */
describe.runIf(HAVE_CHROMIUM)('UI: loading counts, the Requests table, waiting requests', { timeout: TIMEOUT }, () => {
  const served = useBrowserServer();
  const api = (method: string, path: string, body?: unknown) => served.api()(method, path, body);

  /** Holds every read of the queue (the plain read and the live stream) until `release()`. */
  async function holdQueue(page: Page): Promise<() => void> {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route((url) => url.pathname === '/api/v1/queue' || url.pathname === '/api/v1/queue/events', async (route) => {
      await held;
      await route.continue();
    });
    return release;
  }

  it('the queue badge never reads 0 before the queue has loaded, then shows the real count', async () => {
    await propose(api, 'Which cost centre pays for the offsite?');
    const pending = (await api('GET', '/queue')).body.length as number;
    expect(pending).toBeGreaterThan(0);

    const page = await served.page();
    const release = await holdQueue(page);
    await signIn(page, served.server.url);
    await page.getByRole('heading', { name: 'Review queue', exact: true }).waitFor();
    const badge = page.getByRole('link', { name: /^Queue/ }).locator('.count');
    expect(await badge.textContent()).toBe('…');
    expect(await badge.getAttribute('aria-label')).toBe('pending: loading');
    expect(await page.getByText(/(^|\D)0 pending/).count()).toBe(0);
    expect(await page.title()).not.toMatch(/\(0\)/);

    release();
    await expect.poll(() => badge.textContent()).toBe(String(pending));
    expect(await badge.getAttribute('aria-label')).toBe(`${pending} pending`);
    await expect.poll(() => page.locator('#queue-title + .view-sub').textContent()).toMatch(new RegExp(`^${pending} pending`));
  });

  it('at 1280×800 the Requests table gives the question room (ids and times do not squeeze it)', async () => {
    await propose(api, 'When a customer disputes part of an invoice after the grace period, which ledger account takes the credit note and who approves it?', { consumer: 'accounts-receivable-reconciliation-bot', topic: 'billing' });
    const page = await served.page({ width: 1280, height: 800 });
    await signIn(page, `${served.server.url}/#/requests`);
    const question = page.locator('table.history tbody th').first();
    await question.waitFor();
    const cell = (await question.boundingBox())!.width;
    const table = (await page.locator('table.history').boundingBox())!.width;
    const sideways = await page.evaluate('document.documentElement.scrollWidth > window.innerWidth');
    await page.screenshot({ path: screenshotPath('requests-1280.png') });
    expect(cell).toBeGreaterThanOrEqual(300);
    expect(cell / table).toBeGreaterThanOrEqual(0.3);
    expect(sideways, 'the page scrolls sideways').toBe(false);
  });

  it('a waiting request says why and until when, and when it gives up', async () => {
    const submitted = await api('POST', '/requests', { consumer_id: 'ops', topic: 'billing', question: 'Is the VAT rate on e-books reduced?', context: { asked_because: 'a customer asked' } });
    expect(submitted.status).toBe(200);
    const id: string = submitted.body.request_id;
    const tomorrow = new Date(Date.now() + 86_400_000);
    tomorrow.setUTCHours(7, 0, 0, 0);
    const page = await served.page();
    // Until the server sends `waiting` and `gives_up_at` itself, add them to its answer.
    await page.route((url) => url.pathname === `/api/v1/requests/${id}`, async (route) => {
      const res = await route.fetch();
      const body = await res.json();
      await route.fulfill({
        response: res,
        json: { ...body, waiting: body.waiting ?? { why: 'quiet_hours', until: tomorrow.toISOString(), timezone: 'Asia/Kathmandu' }, gives_up_at: body.gives_up_at ?? new Date(Date.now() + 3 * 86_400_000).toISOString() },
      });
    });
    await signIn(page, `${served.server.url}/#/requests/${id}`);
    const note = page.locator('.waiting-note');
    await expect.poll(() => note.textContent()).toMatch(/Gives up at \d\d:\d\d (today|\w{3} \d{1,2} \w{3})\./);
    await page.screenshot({ path: screenshotPath('request-waiting.png') });
    expect(await note.textContent()).toMatch(/^(Quiet hours end at \d\d:\d\d Asia\/Kathmandu (today|on \w{3} \d{1,2} \w{3}), in [^;]+; then the expert is asked|Asked .+; waiting for the answer)\./);
  });
});
