import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { duration, percent, ratio } from '../../web/src/insight-format.js';
import { HAVE_CHROMIUM, openBrowser, screenshotPath, signIn, TIMEOUT } from '../support/browser.js';
import { buildTestApp, submitBody, type TestApp } from '../support/build-test-app.js';
import { watchPolicy } from './watch-policy.js';

const ADMIN = 'insights-admin-token-1';
const REVIEWER = 'insights-reviewer-token-1';
const CONSUMER = 'insights-consumer-token-1';
/** The server's clock and the page's stand here: Monday 23 November 2026, 10:00 UTC. */
const NOW = '2026-11-23T10:00:00.000Z';
const OUTCOMES = 'Requests per week by outcome';

type Time = { count: number; p50_s: number | null; p90_s: number | null };
type Figures = { key: string; requests: Record<string, number>; time_to_first_answer: Time; proposal_to_decision: Time; asks: number; share_of_asks: number | null; answers: number; skips: number; mutes: number };

/**
 * The Insights page in Chromium against the app in this process, whose clock the test sets: five
 * requests over two weeks (accepted, rejected, cancelled, open), each figure on the page checked
 * against the API's for the same window and filters.
 */
describe.runIf(HAVE_CHROMIUM)('the Insights page', { timeout: TIMEOUT }, () => {
  let t: TestApp;
  let base = '';
  let browser: Awaited<ReturnType<typeof openBrowser>> | null = null;

  const at = (iso: string) => t.clock.set(iso);
  async function submit(iso: string, topic: string, consumer: string): Promise<{ id: string; expert: string }> {
    at(iso);
    const res = await t.call('POST', '/api/v1/requests', submitBody({ topic, consumer_id: consumer, question: `A ${topic} question of ${iso}?` }));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const request = await t.call('GET', `/api/v1/requests/${res.body.request_id}`);
    return { id: res.body.request_id, expert: request.body.asks[0].expert_id };
  }
  async function answer(iso: string, r: { id: string; expert: string }): Promise<string> {
    at(iso);
    const reply = await t.call('POST', '/api/v1/replies', { expert_id: r.expert, text: 'Thirty days from the invoice date.', request_id: r.id });
    expect(reply.body.outcome).toBe('proposed');
    return reply.body.proposal_id;
  }
  async function decide(iso: string, proposal: string, how: 'accept' | 'reject') {
    at(iso);
    const res = await t.call('POST', `/api/v1/proposals/${proposal}/${how}`, how === 'accept' ? { decided_by: 'rita' } : { decided_by: 'rita', reason: 'Not our policy.' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }

  beforeAll(async () => {
    t = await buildTestApp({
      token: ADMIN,
      credentials: [{ name: 'Riley Reviewer', role: 'reviewer', token: REVIEWER }, { name: 'billing-bot', role: 'consumer', token: CONSUMER }],
    });
    // The week of 9 November: accepted (answered in 30 min, decided in 1 h), rejected, cancelled.
    const a = await submit('2026-11-09T09:00:00.000Z', 'billing', 'billing-bot');
    await decide('2026-11-09T10:30:00.000Z', await answer('2026-11-09T09:30:00.000Z', a), 'accept');
    const b = await submit('2026-11-10T09:00:00.000Z', 'billing', 'ops-bot');
    await decide('2026-11-10T09:50:00.000Z', await answer('2026-11-10T09:20:00.000Z', b), 'reject');
    const c = await submit('2026-11-11T09:00:00.000Z', 'billing', 'billing-bot');
    at('2026-11-11T09:05:00.000Z');
    expect((await t.call('POST', `/api/v1/requests/${c.id}/cancel`, {})).status).toBe(200);
    // The week of 16 November: a deployments question accepted after 2 h, another still open.
    const d = await submit('2026-11-17T09:00:00.000Z', 'deployments', 'ops-bot');
    await decide('2026-11-17T12:00:00.000Z', await answer('2026-11-17T10:00:00.000Z', d), 'accept');
    await submit('2026-11-18T09:00:00.000Z', 'deployments', 'ops-bot');
    at(NOW);
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => t?.close());
  afterEach(async () => {
    await browser?.close();
    browser = null;
  });

  async function open(hash: string, viewport = { width: 1280, height: 900 }, token = ADMIN) {
    browser = await openBrowser(viewport);
    const page = browser.page;
    const watch = await watchPolicy(page);
    await page.clock.setFixedTime(new Date(NOW));
    await signIn(page, `${base}/${hash}`, token);
    if (hash.startsWith('#/insights')) await page.getByRole('heading', { name: 'Insights', exact: true }).waitFor();
    return { page, watch };
  }
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the API's JSON
  const insights = async (query: Record<string, string>): Promise<any> => (await t.call('GET', `/api/v1/insights?${new URLSearchParams(query)}`)).body;
  const shown = async (page: Page) => ({
    from: (await page.locator('.insight-window time').nth(0).getAttribute('datetime'))!,
    to: (await page.locator('.insight-window time').nth(1).getAttribute('datetime'))!,
  });
  const table = async (page: Page, title: string) =>
    (await page.getByRole('region', { name: `${title} (table)` }).locator('tbody tr').allInnerTexts()).map((row) => row.split('\t').map((cell) => cell.trim()));
  const outcomeRows = (groups: Figures[]) => groups.map((g) => [g.key, ...['submitted', 'accepted', 'rejected', 'failed', 'open'].map((k) => String(g.requests[k]))]);
  const focused = (page: Page) => page.evaluate('document.activeElement ? document.activeElement.id || document.activeElement.getAttribute("aria-label") || document.activeElement.textContent : null');
  async function download(page: Page, press: () => Promise<void>, name?: string): Promise<string[][]> {
    const [file] = await Promise.all([page.waitForEvent('download'), press()]);
    if (name) expect(file.suggestedFilename()).toBe(name);
    const text = readFileSync(await file.path(), 'utf8');
    expect(text.startsWith('\uFEFF'), 'a byte-order mark for spreadsheets').toBe(true);
    return text.slice(1).trimEnd().split('\r\n').map((line) => line.split(','));
  }

  it('shows each chart with its numbers equal to the API’s, narrows by topic, downloads CSV, works by keyboard, under the CSP', async () => {
    // The page is served under the strict policy the server always sends.
    const policy = String((await t.app.inject({ method: 'GET', url: '/' })).headers['content-security-policy']);
    expect(policy).toContain("style-src 'self'");
    expect(policy).not.toMatch(/unsafe-inline|unsafe-eval/);
    const { page, watch } = await open('#/insights');
    const window = await shown(page);
    // The default: the last 30 days, to the next whole hour.
    expect(window).toEqual({ from: '2026-10-24T10:00:00.000Z', to: NOW });
    const week = await insights({ ...window, group_by: 'week' });
    await expect.poll(() => table(page, OUTCOMES)).toEqual(outcomeRows(week.groups));
    const rows = await table(page, OUTCOMES);
    expect(rows.find((r) => r[0] === '2026-11-09')).toEqual(['2026-11-09', '3', '1', '1', '1', '0']);
    expect(rows.find((r) => r[0] === '2026-11-16')).toEqual(['2026-11-16', '2', '1', '0', '0', '1']);
    expect(await page.getByLabel('Totals of the window').textContent()).toMatch(/Submitted5Accepted2Rejected1Failed1 \(1 cancelled\)Open1/);

    // Three charts drawn on canvas, each with its table.
    const canvases = page.locator('canvas');
    expect(await canvases.count()).toBe(3);
    for (const box of await Promise.all((await canvases.all()).map((c) => c.boundingBox()))) expect(box!.width * box!.height).toBeGreaterThan(10_000);
    expect(await table(page, 'Time to first answer and to decision per week')).toEqual(week.groups.map((g: Figures) => [
      g.key, duration(g.time_to_first_answer.p50_s), duration(g.time_to_first_answer.p90_s), String(g.time_to_first_answer.count),
      duration(g.proposal_to_decision.p50_s), duration(g.proposal_to_decision.p90_s), String(g.proposal_to_decision.count),
    ]));
    // Two answers that week (after 20 and 30 minutes), each time read from its bucket.
    expect((await table(page, 'Time to first answer and to decision per week')).find((r) => r[0] === '2026-11-09')).toEqual(expect.arrayContaining([expect.stringMatching(/^(19|20|21) min$/), expect.stringMatching(/^(29|30|31|32|33) min$/), '2']));
    const experts = (await insights({ ...window, group_by: 'expert' })).groups as Figures[];
    const names: Record<string, string> = { dana: 'Dana Smith', lee: 'Lee Chen', sam: 'Sam Okafor' };
    expect(await table(page, 'Experts: load and answer rate')).toEqual([...experts].sort((a, b) => b.asks - a.asks || (a.key < b.key ? -1 : 1)).map((g) => [
      names[g.key], String(g.asks), percent(g.share_of_asks), String(g.answers), percent(ratio(g.answers, g.asks)), String(g.skips), String(g.mutes), duration(g.time_to_first_answer.p50_s),
    ]));
    expect((await table(page, 'Top topics')).map((r) => r.slice(0, 2))).toEqual([['billing', '3'], ['deployments', '2']]);
    await page.screenshot({ path: screenshotPath('insights-1280.png'), fullPage: true });

    // A CSV has the same numbers, shares as fractions.
    const csv = await download(page, () => page.getByRole('button', { name: `Download CSV: ${OUTCOMES}` }).click(), 'expertq-requests-per-week-2026-10-24-to-2026-11-23.csv');
    expect(csv).toEqual([['Week (first day)', 'Submitted', 'Accepted', 'Rejected', 'Failed', 'Open'], ...outcomeRows(week.groups)]);
    const expertCsv = await download(page, () => page.getByRole('button', { name: 'Download CSV: Experts: load and answer rate' }).click());
    expect(expertCsv[0]!.slice(0, 5)).toEqual(['Expert id', 'Asks', 'Share of asks (fraction of 1)', 'Answers', 'Answer rate (fraction of 1)']);
    expect(expertCsv.slice(1).map((r) => r.slice(0, 3))).toEqual([...experts].sort((a, b) => b.asks - a.asks || (a.key < b.key ? -1 : 1)).map((g) => [g.key, String(g.asks), String(g.share_of_asks)]));

    // A topic narrows every figure, and the URL keeps it.
    await page.getByLabel('Topic', { exact: true }).fill('deployments');
    await page.getByLabel('Topic', { exact: true }).press('Enter');
    await expect.poll(() => page.url()).toContain('#/insights?topic=deployments');
    const deployments = await insights({ ...window, group_by: 'week', topic: 'deployments' });
    await expect.poll(() => table(page, OUTCOMES)).toEqual(outcomeRows(deployments.groups));
    expect((await table(page, OUTCOMES)).find((r) => r[0] === '2026-11-09')).toEqual(['2026-11-09', '0', '0', '0', '0', '0']);
    await expect.poll(() => page.getByLabel('Totals of the window').textContent()).toMatch(/^Submitted2Accepted1/);

    // By keyboard: Tab reaches the range, an arrow key picks the next preset, Tab reaches a download and Enter saves it.
    for (let i = 0; i < 40 && (await focused(page)) !== 'insights-range'; i++) await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('insights-range');
    expect(await page.evaluate('getComputedStyle(document.activeElement).outlineStyle')).not.toBe('none');
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => page.url()).toContain('range=90d');
    await expect.poll(async () => (await shown(page)).from).toBe('2026-08-25T10:00:00.000Z');
    for (let i = 0; i < 40 && (await focused(page)) !== `Download CSV: ${OUTCOMES}`; i++) await page.keyboard.press('Tab');
    expect(await page.evaluate('getComputedStyle(document.activeElement).outlineStyle')).not.toBe('none');
    const keyed = await download(page, () => page.keyboard.press('Enter'));
    const quarter = await insights({ ...(await shown(page)), group_by: 'week', topic: 'deployments' });
    expect(keyed.slice(1)).toEqual(outcomeRows(quarter.groups));

    expect(watch.violations).toEqual([]);
    expect(watch.consoleErrors).toEqual([]);
  });

  it('a reviewer at 390 px: nothing scrolls sideways and the charts fit; a window with no requests says so instead of empty charts', async () => {
    // The API refuses consumers; reviewers and admins have the page in the navigation.
    expect((await t.callAs(CONSUMER, 'GET', '/api/v1/insights')).status).toBe(403);
    const { page, watch } = await open('#/', { width: 390, height: 844 }, REVIEWER);
    // The page's code and its chart library are fetched when the page is first opened, not with the queue.
    await page.getByRole('link', { name: 'Insights' }).waitFor();
    const fetched: string[] = [];
    page.on('request', (request) => fetched.push(new URL(request.url()).pathname));
    await page.getByRole('link', { name: 'Insights' }).click();
    await page.getByRole('heading', { name: 'Insights', exact: true }).waitFor();
    expect(fetched.filter((path) => path.startsWith('/assets/'))).toEqual([expect.stringMatching(/^\/assets\/chunks\/insights-view-\w+\.js$/)]);
    await expect.poll(() => page.locator('canvas').count()).toBe(3);
    await expect.poll(() => table(page, OUTCOMES).then((rows) => rows.length)).toBeGreaterThan(0);
    expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth'), 'the page scrolls sideways').toBe(true);
    for (const canvas of await page.locator('canvas').all()) {
      const box = (await canvas.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(390);
      expect(box.width).toBeGreaterThan(250);
    }
    await page.screenshot({ path: screenshotPath('insights-390.png'), fullPage: true });

    await page.evaluate('location.hash = "#/insights?from=2025-01-01&to=2025-01-31"');
    await page.getByRole('heading', { name: 'No requests in this window' }).waitFor();
    expect(await page.locator('canvas').count()).toBe(0);
    expect(await shown(page)).toEqual({ from: '2025-01-01T00:00:00.000Z', to: '2025-02-01T00:00:00.000Z' });
    expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);

    expect(watch.violations).toEqual([]);
    expect(watch.consoleErrors).toEqual([]);
  });
});
