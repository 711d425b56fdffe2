import { describe, expect, it } from 'vitest';
import { report, simulate } from './simulate.js';

/**
 * A short run of the expert-protection simulation in `npm test` (a fixed seed unless SIM_SEED is set);
 * `npm run simulate -- --seed N --requests 20000` runs long ones.
 */
const SEED = Number(process.env.SIM_SEED ?? 20261122);
const REQUESTS = Number(process.env.SIM_REQUESTS ?? 400);
/** `SIM_ENGINE=sqlite|postgres` runs one engine (`npm run simulate -- --engine`); `npm test` runs both. */
const ENGINES = (process.env.SIM_ENGINE ? [process.env.SIM_ENGINE] : ['sqlite', 'postgres']) as Array<'sqlite' | 'postgres'>;

describe.each(ENGINES)('expert-protection simulation on %s', (engine) => {
  it(`keeps every invariant over ${REQUESTS} simulated requests`, async () => {
    const result = await simulate({ seed: SEED, requests: REQUESTS, engine });
    console.log(report(result));
    expect(result.figures.asks_sent).toBeGreaterThan(0);
    expect(result.figures.midnights).toBeGreaterThan(0);
    // The service asked "Slack" for experts' do-not-disturb, and every send was checked against it (a
    // short run finds it on only a few times, or not at all: the 20,000-request run exercises it).
    expect(result.figures.dnd_lookups).toBeGreaterThan(0);
    expect(result.figures.sends_checked_dnd).toBe(result.figures.asks_sent);
    // Experts showed a Slack away status, and questions for them were passed on (each checked).
    expect(result.figures.away_status_lookups).toBeGreaterThan(0);
    expect(result.figures.status_pass_ons).toBeGreaterThan(0);
    expect(result.figures.sends_checked_away_status).toBe(result.figures.asks_sent);
    // Experts on Slack then email, Teams alone, Teams then email, and email alone: asks went out on
    // all three, and those Slack refused for good (a deactivated account) or Teams could not deliver
    // (the app never installed) moved to email, each move audited and every send checked like the rest.
    expect(result.figures.asks_by_slack).toBeGreaterThan(0);
    expect(result.figures.asks_by_teams).toBeGreaterThan(0);
    expect(result.figures.asks_by_email).toBeGreaterThan(0);
    expect(result.figures.moved_from_slack).toBeGreaterThan(0);
    expect(result.figures.moved_from_teams).toBeGreaterThan(0);
    expect(result.figures.moves_checked).toBe(result.figures.moved_from_slack! + result.figures.moved_from_teams!);
    // Security answers fall under a two-person review rule: votes were cast, and every accepted one
    // had two different reviewers' accepts (a single accept never delivered one).
    expect(result.figures.review_votes).toBeGreaterThan(0);
    expect(result.figures.two_person_accepts).toBeGreaterThan(0);
    expect(result.violations).toEqual([]);
  }, Number(process.env.SIM_TIMEOUT_MS ?? 120_000));
});
