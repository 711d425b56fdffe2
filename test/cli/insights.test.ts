import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InsightFigures, InsightsView } from '../../src/wire/insight-schemas.js';
import { cleanEnv, CLI_TEST_TIMEOUT_MS, jsonOf, runCli } from '../support/cli.js';
import { schedulerKit, type SchedulerKit } from '../support/scheduler-kit.js';
import { scriptHistory } from '../store/insight-history.js';
import { ADMIN, CONSUMER, credentials, REVIEWER } from '../store/insight-tokens.js';

/**
 * `expertq insights` against the app listening on a local port, after a scripted morning of work
 * (Monday 23 November 2026 from 10:00 UTC, 11:00 in Berlin): its rows are the API's figures.
 */


let kit: SchedulerKit | undefined;
let url = '';
let cwd = '';
beforeAll(async () => {
  // No config file in the folder the CLI runs in: it learns the server's time zone from the answer.
  cwd = mkdtempSync(join(tmpdir(), 'expertq-cli-insights-'));
  kit = await schedulerKit({ token: ADMIN, credentials, config: { org: { name: 'Acme', timezone: 'Europe/Berlin' } } });
  await scriptHistory(kit);
  url = await kit.t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await kit?.close();
  rmSync(cwd, { recursive: true, force: true });
});

const as = (token: string) => (...args: string[]) => runCli(['--url', url, ...args], { cwd, env: cleanEnv({ EXPERTQ_TOKEN: token }) });
const cli = as(REVIEWER);

async function api(query: Record<string, string>): Promise<InsightsView> {
  const res = await kit!.t.callAs(REVIEWER, 'GET', `/api/v1/insights?${new URLSearchParams(query)}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as InsightsView;
}

/** The table a command printed: each line's cells (split on two spaces or more), keyed by its first cell. */
function tableOf(stdout: string): { head: string[]; rows: Map<string, Record<string, string>> } {
  const lines = stdout.split('\n\n')[1]!.split('\n').filter(Boolean);
  const [head, ...body] = lines.map((line) => line.split(/ {2,}/));
  return { head: head!, rows: new Map(body.map((cells) => [cells[0]!, Object.fromEntries(head!.map((h, i) => [h, cells[i]!]))])) };
}

/** A printed time back in seconds: "<1s", "42s", "4m 10s", "2h 5m", "3d 4h"; null for "—". */
function seconds(text: string): number | null {
  if (text === '—') return null;
  if (text === '<1s') return 0.5;
  const unit: Record<string, number> = { d: 86_400, h: 3600, m: 60, s: 1 };
  return text.split(' ').reduce((sum, part) => sum + Number(part.slice(0, -1)) * unit[part.slice(-1)]!, 0);
}

const share = (text: string) => (text === '—' ? null : Number(text.replace('%', '')) / 100);

const COUNTS: Record<string, (f: InsightFigures) => number> = {
  SUBMITTED: (f) => f.requests.submitted,
  ACCEPTED: (f) => f.requests.accepted,
  REJECTED: (f) => f.requests.rejected,
  FAILED: (f) => f.requests.failed,
  OPEN: (f) => f.requests.open,
  LIBRARY: (f) => f.answered_from_library,
  ASKS: (f) => f.asks,
  ANSWERS: (f) => f.answers,
  SKIPS: (f) => f.skips,
  MUTES: (f) => f.mutes,
  HOLDS: (f) => f.cap_holds,
};
const SHARES: Record<string, (f: InsightFigures) => number | null> = {
  'ASK-SHARE': (f) => f.share_of_asks,
  ESCALATED: (f) => f.share_escalated,
  'SENT-BACK': (f) => f.share_sent_back,
};
const TIMES: Record<string, (f: InsightFigures) => number | null> = {
  'ANSWER-P50': (f) => f.time_to_first_answer.p50_s,
  'ANSWER-P90': (f) => f.time_to_first_answer.p90_s,
  'DECIDE-P50': (f) => f.proposal_to_decision.p50_s,
  'DECIDE-P90': (f) => f.proposal_to_decision.p90_s,
};

/** Every row printed is the API's group (or total), figure by figure: counts exactly, shares to 0.1 %, times to the second. */
function expectSameFigures(printed: Record<string, string>, figures: InsightFigures): void {
  for (const [column, of] of Object.entries(COUNTS)) expect(printed[column], column).toBe(String(of(figures)));
  for (const [column, of] of Object.entries(SHARES)) {
    const want = of(figures);
    if (want === null) expect(printed[column], column).toBe('—');
    else expect(Math.abs(share(printed[column]!)! - want), column).toBeLessThanOrEqual(0.0005);
  }
  for (const [column, of] of Object.entries(TIMES)) {
    const want = of(figures);
    if (want === null) expect(printed[column], column).toBe('—');
    else expect(Math.abs(seconds(printed[column]!)! - want), column).toBeLessThanOrEqual(want < 1 ? 0 : want < 3600 ? 0.5 : 30);
  }
}

describe('expertq insights', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it('--by topic: a row per topic and a TOTAL row, each the API’s figures; dates are days in the server’s time zone', async () => {
    const result = await cli('insights', '--by', 'topic', '--from', '2026-11-23', '--to', '2026-11-24');
    expect(result.code, result.stderr).toBe(0);
    // Midnight in Berlin is 23:00 UTC the day before.
    const view = await api({ group_by: 'topic', from: '2026-11-22T23:00:00.000Z', to: '2026-11-23T23:00:00.000Z' });
    expect(result.stdout.split('\n')[0]).toBe('Insights from 2026-11-23 00:00 to 2026-11-24 00:00 (Europe/Berlin)');
    const { head, rows } = tableOf(result.stdout);
    expect(head).toEqual(['TOPIC', ...Object.keys(COUNTS).slice(0, 7), 'ASK-SHARE', 'ANSWERS', ...Object.keys(TIMES), 'ESCALATED', 'SENT-BACK', 'SKIPS', 'MUTES', 'HOLDS']);
    expect([...rows.keys()]).toEqual([...view.groups.map((g) => g.key), 'TOTAL']);
    expect(view.groups.map((g) => g.key)).toEqual(['billing', 'gardening']);
    for (const g of view.groups) expectSameFigures(rows.get(g.key)!, g);
    expectSameFigures(rows.get('TOTAL')!, view.total);
    expect(view.total.requests.submitted).toBe(6);
    // Times as people read them: the answers came after 30 and 40 minutes; the API reads 1932 and 2318 s (each within its bucket).
    expect(rows.get('TOTAL')!).toMatchObject({ 'ANSWER-P50': '32m 12s', 'ANSWER-P90': '38m 38s', ESCALATED: '50%', 'SENT-BACK': '25%', 'ASK-SHARE': '100%' });
    expect(result.stdout).toMatch(/^Failed, by reason: no_expert_found 1, cancelled 1\.$/m);
  });

  it('--by week: every week of the window, Monday first, empty weeks too', async () => {
    const result = await cli('insights', '--by', 'week', '--from', '2026-11-16T00:00:00+01:00', '--to', '2026-12-07');
    expect(result.code, result.stderr).toBe(0);
    const view = await api({ group_by: 'week', from: '2026-11-15T23:00:00.000Z', to: '2026-12-06T23:00:00.000Z' });
    const { head, rows } = tableOf(result.stdout);
    expect(head[0]).toBe('WEEK');
    expect([...rows.keys()]).toEqual(['2026-11-16', '2026-11-23', '2026-11-30', 'TOTAL']);
    for (const g of view.groups) expectSameFigures(rows.get(g.key)!, g);
    expectSameFigures(rows.get('TOTAL')!, view.total);
    expect(rows.get('2026-11-16')).toMatchObject({ SUBMITTED: '0', 'ANSWER-P50': '—', ESCALATED: '—' });
  });

  it('without --by: the total as a list of figures; --json prints the API’s answer as it is', async () => {
    const text = await cli('insights', '--from', '2026-11-23', '--to', '2026-11-24');
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^Requests submitted\s+6$/m);
    expect(text.stdout).toMatch(/^ {2}failed\s+2 \(no_expert_found 1, cancelled 1\)$/m);
    expect(text.stdout).toMatch(/^Time to first answer\s+p50 32m 12s, p90 38m 38s \(2 answers\)$/m);
    expect(text.stdout).toMatch(/^Sent back\s+25% \(1 of 4 proposals\)$/m);

    const json = jsonOf<InsightsView>(await cli('--json', 'insights', '--by', 'expert', '--from', '2026-11-23', '--to', '2026-11-24'));
    expect(json).toEqual(await api({ group_by: 'expert', from: '2026-11-22T23:00:00.000Z', to: '2026-11-23T23:00:00.000Z' }));
  });

  it('a bad --by or --from is a usage error (exit 2) naming what is allowed; a bad window is the API’s 400 (exit 1)', async () => {
    const by = await cli('insights', '--by', 'month');
    expect(by.code).toBe(2);
    expect(by.stdout).toBe('');
    expect(by.stderr).toMatch(/'month' is invalid.*topic, expert, consumer, day, week/);

    const from = await cli('insights', '--from', 'last tuesday');
    expect(from.code).toBe(2);
    expect(from.stderr).toMatch(/--from must be a date \(2026-11-23/);

    const backwards = await cli('insights', '--from', '2026-11-24', '--to', '2026-11-23');
    expect(backwards.code).toBe(1);
    expect(backwards.stderr).toMatch(/^expertq: 400 bad_request: `from` must be before `to`\./m);

    const long = await cli('insights', '--from', '2023-01-01', '--to', '2026-01-02');
    expect(long.code).toBe(1);
    expect(long.stderr).toMatch(/400 bad_request: The window is longer than three years/);
  });

  it('a consumer token is refused with the API’s 403', async () => {
    const result = await as(CONSUMER)('insights');
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^expertq: 403 forbidden: /m);
  });
});
