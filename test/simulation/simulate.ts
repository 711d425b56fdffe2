import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { stringify } from 'yaml';
import { loadConfig, type Config } from '../../src/config/load-config.js';
import { startOfLocalDay } from '../../src/core/local-time.js';
import { AppError } from '../../src/errors.js';
import { composeService } from '../../src/compose-service.js';
import type { ExpertqService } from '../../src/service/expertq-service.js';
import { openPgStore } from '../../src/store/postgres/pg-store.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { createTestDatabase, dropTestDatabase } from '../store/engines.js';
import type { Store } from '../../src/store/store.js';
import { FakeClock } from '../support/fake-clock.js';
import { seededRandom } from '../../src/core/seeded-random.js';
import { CheckingTransport, Tracked } from './checking-transport.js';
import { simChannels } from './sim-channels.js';
import { checkVotes, SIM_REVIEW, simReviewer } from './sim-review.js';
import { namedRules } from '../../src/config/review-rules-schema.js';
import { DndSchedule } from './dnd-windows.js';
import { AwayLog } from './protection-rules.js';
import { EXPERT_IDS, MAX_OPEN, MAX_PER_DAY, ORG_TZ as TZ, QUIET, TOPICS, expertsFor, zoneOf } from './sim-experts.js';

/**
 * The expert-protection simulation: a seeded, randomized workload against the real service, its real
 * store (SQLite, or PostgreSQL with `engine`) and a fake clock, with an invariant checker over what the
 * transport was handed and what the store holds. Requests, answers, `skip`, `mute`, `unmute`,
 * `PUT /experts`, away spells (with and without a delegate) and early returns, Slack do-not-disturb
 * windows (the presence lookup answers from a seeded schedule), cancels, decisions; the
 * clock jumps by minutes to days, across midnight and both DST changes of Europe/Berlin; the service
 * restarts on the same database now and then. Experts live in five zones with their own working hours
 * and caps (sim-experts.ts); every send is held against them (checking-transport.ts).
 */
export interface SimulationResult {
  seed: number;
  requests: number;
  figures: Record<string, number>;
  violations: string[];
  elapsedMs: number;
}

const HOUR = 3_600_000;
const OPEN_STATUSES = ['queued', 'asked', 'escalated'] as const;
const FINAL_STATUSES = new Set(['accepted', 'rejected', 'failed']);
const KNOWN_STATUSES = new Set([...OPEN_STATUSES, 'proposed', ...FINAL_STATUSES]);

/** The earliest start of "today" in any expert's zone at `now`: asks sent since may still count against a cap. */
const earliestDayStart = (now: number) => Math.min(...EXPERT_IDS.map((id) => startOfLocalDay(now, zoneOf(id))));

export async function simulate(options: { seed: number; requests: number; engine?: 'sqlite' | 'postgres'; log?: (line: string) => void }): Promise<SimulationResult> {
  const started = Date.now();
  const rand = seededRandom(options.seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
  const violations: string[] = [];
  const figures: Record<string, number> = {
    requests: 0, asks_sent: 0, answers: 0, skips: 0, mutes: 0, unmutes: 0, accepts: 0, rejects: 0, cancels: 0,
    put_experts: 0, aways: 0, aways_delegated: 0, backs: 0, restarts: 0, midnights: 0, dst_changes: 0, ticks: 0,
    invariant_checks: 0, away_pass_on_checks: 0, status_pass_ons: 0,
  };
  const dir = mkdtempSync(join(tmpdir(), 'expertq-sim-'));
  const configFile = join(dir, 'service.yaml');
  writeFileSync(configFile, stringify({
    org: { name: 'Sim Org', timezone: TZ },
    defaults: { escalation_after: '1h', give_up_after: '10h', quiet_hours: QUIET, max_open_asks_per_expert: MAX_OPEN, max_asks_per_expert_per_day: MAX_PER_DAY },
    experts: expertsFor(0),
    topics: { security: { fallback: 'hal' } },
    review: SIM_REVIEW,
  }));
  // Late March: the first days cross the spring DST change; October is reached by a long jump later.
  const clock = new FakeClock(Date.parse('2026-03-27T09:00:00Z'));
  const log = pino({ level: 'silent' });
  const tracked = new Tracked();
  const aways = new AwayLog();
  const dnd = new DndSchedule(options.seed);
  const checker = new CheckingTransport(clock, violations, tracked, aways, dnd);
  const { transport, slack, teams, email, moves } = simChannels(checker, () => service, violations);
  let config: Config = loadConfig(configFile);
  // PostgreSQL: a fresh database on the test server, opened again at each restart like the SQLite file.
  const database = `eq_sim_${options.seed}_${process.pid}`;
  const pgUrl = options.engine === 'postgres' ? await createTestDatabase(database) : null;
  const openEngine = async (): Promise<Store> => (pgUrl === null ? openSqliteStore(config.storagePath) : openPgStore({ url: pgUrl, poolSize: 4 }));
  let store = await openEngine();
  const open = () => {
    const presence = async (expertId: string) => dnd.presenceAt(expertId, clock.now());
    const opened: ExpertqService = composeService({ config, store, transport, log, clock, presence, review: { rules: namedRules(config.review.rules) } });
    checker.service = opened;
    return opened;
  };
  let service = open();
  const tryOp = async (op: () => Promise<unknown>) => {
    try {
      await op();
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) violations.push(`operation failed: ${String(error)}`);
    }
  };
  const offsetAt = (ms: number) => new Date(ms).toLocaleString('en-US', { timeZone: TZ, timeZoneName: 'shortOffset' }).split(' ').pop();

  const advance = async (ms: number) => {
    const before = clock.now();
    clock.advance(ms);
    if (startOfLocalDay(before, TZ) !== startOfLocalDay(clock.now(), TZ)) figures.midnights!++;
    if (offsetAt(before) !== offsetAt(clock.now())) figures.dst_changes!++;
    await service.tick();
    figures.ticks!++;
    await service.idle();
  };

  /**
   * Each question passed on because of a Slack away status: the expert really showed one then, and the
   * audit names when it clears. Each is counted once.
   */
  const statusPassOns = new Set<string>();
  const checkStatusPassOns = async (requestId: string) => {
    for (const row of await store.requests.audit(requestId)) {
      if (row.type !== 'passed_on' || row.data.source !== 'slack_status' || statusPassOns.has(String(row.data.ask_id))) continue;
      statusPassOns.add(String(row.data.ask_id));
      figures.status_pass_ons!++;
      const from = row.actor.replace(/^expert:/, '');
      const shown = dnd.awayAt(from, row.at);
      if (!shown) violations.push(`ask ${String(row.data.ask_id)} of ${from} passed on at ${new Date(row.at).toISOString()} for an away status they did not show`);
      else if (row.data.until !== new Date(shown.to).toISOString()) violations.push(`ask ${String(row.data.ask_id)} passed on with until ${String(row.data.until)}, but the status clears at ${new Date(shown.to).toISOString()}`);
    }
  };

  const check = async () => {
    figures.invariant_checks!++;
    const now = clock.now();
    const asks = await tracked.asks(store);
    for (const e of await service.listExperts()) {
      const open = (await store.asks.openOf(e.id)).length;
      // An expert's day is their own zone's.
      const dayStart = startOfLocalDay(now, zoneOf(e.id));
      const today = asks.filter((a) => a.expert_id === e.id && a.sent_at !== null && a.sent_at >= dayStart).length;
      if (e.open_asks !== open) violations.push(`expert ${e.id}: open_asks ${e.open_asks} but ${open} open asks`);
      if (e.asks_today !== today) violations.push(`expert ${e.id}: asks_today ${e.asks_today} but ${today} asks sent today`);
    }
    for (const status of Object.keys(await store.metrics.requestsByStatus())) {
      if (!KNOWN_STATUSES.has(status)) violations.push(`requests with an unknown status ${status}`);
    }
    // A request is checked at every check while tracked, so also once finished.
    for (const id of tracked.ids) {
      const r = (await store.requests.get(id))!;
      const open = (OPEN_STATUSES as readonly string[]).includes(r.status);
      if (open && r.give_up_at <= now && !r.drafting) violations.push(`request ${r.id} is open past its give-up deadline`);
      if (!KNOWN_STATUSES.has(r.status)) violations.push(`request ${r.id} has an unknown status`);
      if (r.status === 'failed' && r.reason === null) violations.push(`request ${r.id} failed without a reason`);
      await checkStatusPassOns(r.id);
    }
    await tracked.retire(store, earliestDayStart(now));
  };

  /**
   * An away spell through the service's own operation (what `PUT /experts/{id}/away` calls): minutes
   * to days ahead, written as an instant or as a duration, a delegate half the time. The spell is
   * logged as the simulation asked for it; the service's answer is checked against it, and the expert
   * must be left with no question waiting on them.
   */
  const goAway = async () => {
    const id = pick(EXPERT_IDS);
    const now = clock.now();
    const r = rand();
    const minutes = r < 0.4 ? 10 + Math.floor(rand() * 110) : r < 0.8 ? 60 * (1 + Math.floor(rand() * 12)) : 24 * 60 * (1 + Math.floor(rand() * 4));
    const until = now + minutes * 60_000;
    const delegate = rand() < 0.5 ? pick(EXPERT_IDS.filter((e) => e !== id)) : null;
    const text = rand() < 0.3 ? `${minutes}m` : new Date(until).toISOString();
    await tryOp(async () => {
      const view = await service.setAway(id, { until: text, delegate_to: delegate, note: 'simulated' }, 'reviewer:sim-admin');
      aways.set(id, now, until);
      figures.aways!++;
      if (delegate) figures.aways_delegated!++;
      if (view.away?.until !== new Date(until).toISOString()) violations.push(`expert ${id} set away until ${text} at ${new Date(now).toISOString()}: the service says ${view.away?.until}`);
      await service.idle();
      figures.away_pass_on_checks!++;
      const left = [...(await store.asks.openOf(id)), ...(await store.asks.queued([id]))];
      if (left.length > 0) violations.push(`expert ${id} set away at ${new Date(now).toISOString()} still has ${left.length} question(s) waiting on them: ${left.map((a) => a.id).join(', ')}`);
    });
  };

  let variant = 0;
  while (figures.requests! < options.requests) {
    const roll = rand();
    if (roll < 0.35) {
      figures.requests!++;
      const targeted = rand() < 0.15;
      await tryOp(async () => {
        const submitted = await service.submitRequest({
        consumer_id: pick(['bot-a', 'bot-b', 'bot-c']),
        topic: pick([...TOPICS, 'payroll tax', 'cloud security', 'unknown topic']),
        question: `Simulated question ${figures.requests}?`,
        context: { asked_because: `simulation step ${figures.requests}` },
          ...(targeted ? { target_experts: [pick(expertsFor(variant)).id] } : {}),
        });
        tracked.ids.add(submitted.request_id);
      });
    } else if (roll < 0.6) {
      // The 50 oldest open asks (ids sort by creation), whoever they are with.
      const openAsks = (await Promise.all(EXPERT_IDS.map((id) => store.asks.openOf(id)))).flat().sort((a, b) => (a.id < b.id ? -1 : 1)).slice(0, 50);
      if (openAsks.length > 0) {
        const a = pick(openAsks);
        const kind = rand();
        const text = kind < 0.75 ? 'Here is the answer.' : kind < 0.9 ? 'skip' : 'mute';
        figures[kind < 0.75 ? 'answers' : kind < 0.9 ? 'skips' : 'mutes']!++;
        await tryOp(() => service.receiveReply({ expert_id: a.expert_id, text, request_id: a.request_id }));
      }
    } else if (roll < 0.66) {
      figures.unmutes!++;
      await tryOp(() => service.receiveReply({ expert_id: pick(expertsFor(variant)).id, text: 'unmute' }));
    } else if (roll < 0.8) {
      const pending = (await store.proposals.pending());
      if (pending.length > 0) {
        const p = pick(pending);
        const accept = rand() < 0.8;
        figures[accept ? 'accepts' : 'rejects']!++;
        await tryOp(() => service.decide(p.id, accept ? 'accepted' : 'rejected', { decided_by: simReviewer(rand), ...(accept ? {} : { reason: 'no' }) }));
      }
    } else if (roll < 0.84) {
      // The 20 newest open requests.
      const openRequests = (await Promise.all(OPEN_STATUSES.map((status) => store.requests.list({ status, limit: 20 })))).flat().sort((a, b) => (a.id < b.id ? 1 : -1)).slice(0, 20);
      if (openRequests.length > 0) {
        figures.cancels!++;
        await tryOp(() => service.cancelRequest(pick(openRequests).id, 'sim'));
      }
    } else if (roll < 0.85) {
      figures.put_experts!++;
      variant++;
      await tryOp(async () => service.replaceExperts(expertsFor(variant)));
    } else if (roll < 0.87) {
      await goAway();
    } else if (roll < 0.876) {
      // Back early, or a no-op for an expert who is not away.
      const id = pick(EXPERT_IDS);
      figures.backs!++;
      await tryOp(async () => {
        await service.endAway(id, 'sim-admin');
        aways.end(id, clock.now());
      });
    } else if (roll < 0.881) {
      figures.restarts!++;
      await service.idle();
      await store.close();
      config = loadConfig(configFile);
      store = await openEngine();
      service = open();
    } else {
      // Time passes: mostly minutes, sometimes hours, now and then days (crossing midnights and, in
      // late March and late October, the DST changes).
      const r = rand();
      const ms = r < 0.7 ? (1 + Math.floor(rand() * 30)) * 60_000 : r < 0.97 ? (1 + Math.floor(rand() * 6)) * HOUR : (1 + Math.floor(rand() * 3)) * 24 * HOUR;
      await advance(ms);
      // Around day 60 of the run, jump to late October for the autumn change.
      if (figures.requests! > options.requests / 2 && clock.now() < Date.parse('2026-10-23T00:00:00Z')) {
        await advance(Date.parse('2026-10-23T09:00:00Z') - clock.now());
      }
    }
    await service.idle();
    if (figures.requests! % 25 === 0) await check();
    if (violations.length > 50) break;
  }
  await advance(HOUR);
  await check();
  const decided = (await Promise.all(['accepted', 'rejected'].map((status) => store.requests.list({ status: status as 'accepted', limit: 1_000_000 })))).flat();
  const review = await checkVotes(store, decided.map((r) => r.id));
  violations.push(...review.violations);
  Object.assign(figures, { review_votes: review.votes, two_person_accepts: review.quorums });
  figures.asks_sent = checker.sent;
  Object.assign(figures, { asks_by_slack: slack.sent, asks_by_teams: teams.sent, asks_by_email: email.sent, moved_from_slack: slack.refused, moved_from_teams: teams.refused, moves_checked: moves.checked });
  for (const [rule, n] of Object.entries(checker.checked)) figures[`sends_checked_${rule}`] = n;
  Object.assign(figures, dnd.figures, { sends_dnd_grace: checker.sentAsDndBegan, sends_away_status_grace: checker.sentAsAwayBegan });
  for (const [zone, n] of [...checker.byZone].sort()) figures[`sends_in_${zone}`] = n;
  await service.idle();
  await store.close();
  if (pgUrl !== null) await dropTestDatabase(database);
  rmSync(dir, { recursive: true, force: true });
  return { seed: options.seed, requests: figures.requests!, figures, violations, elapsedMs: Date.now() - started };
}

export { report } from './sim-report.js';
