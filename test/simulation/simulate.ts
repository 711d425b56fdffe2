import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { stringify } from 'yaml';
import { loadConfig, type Config } from '../../src/config/load-config.js';
import { isQuietAt, startOfLocalDay } from '../../src/core/local-time.js';
import { AppError } from '../../src/errors.js';
import { Scheduler } from '../../src/scheduler/scheduler.js';
import { ExpertqService } from '../../src/service/expertq-service.js';
import type { AskRecord } from '../../src/domain/records.js';
import { openPgStore } from '../../src/store/postgres/pg-store.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { createTestDatabase, dropTestDatabase } from '../store/engines.js';
import type { Store } from '../../src/store/store.js';
import type { Inbound, OutboundMessage, Transport } from '../../src/transport/transport.js';
import { FakeClock } from '../support/fake-clock.js';
import { seededRandom } from '../../src/core/seeded-random.js';

/**
 * The expert-protection simulation (issue 11 item 11): a seeded, randomized workload against the real
 * service, its real store (SQLite, or PostgreSQL with `engine`) and a fake clock, with an invariant checker over what the transport
 * was handed and what the store holds. Requests, answers, `skip`, `mute`, `unmute`, `PUT /experts`,
 * cancels, decisions; the clock jumps by minutes to days, across midnight and both DST changes of
 * Europe/Berlin; the service restarts on the same database now and then.
 */
export interface SimulationResult {
  seed: number;
  requests: number;
  figures: Record<string, number>;
  violations: string[];
  elapsedMs: number;
}

const TZ = 'Europe/Berlin';
const QUIET: [string, string] = ['22:00', '07:00'];
const MAX_OPEN = 2;
const MAX_PER_DAY = 4;
const TOPICS = ['billing', 'payments', 'payroll', 'tax', 'refunds', 'deployments', 'kubernetes', 'security'];
const HOUR = 3_600_000;

/** Every variant of the registry names these experts (their topics change). */
const EXPERT_IDS = ['ana', 'ben', 'cho', 'dev', 'eli', 'fay', 'gus', 'hal'];
const OPEN_STATUSES = ['queued', 'asked', 'escalated'] as const;
const FINAL_STATUSES = new Set(['accepted', 'rejected', 'failed']);
const KNOWN_STATUSES = new Set([...OPEN_STATUSES, 'proposed', ...FINAL_STATUSES]);

/**
 * The requests whose asks may still count against an expert's limits: every request submitted, until
 * it is finished and none of its asks is live or was sent since the start of the checked day. The
 * checker reads their asks through the store, independently of the counts the service keeps.
 */
class Tracked {
  readonly ids = new Set<string>();

  async asks(store: Store): Promise<AskRecord[]> {
    return (await Promise.all([...this.ids].map((id) => store.asks.listFor(id)))).flat();
  }

  /** Stops tracking the requests no later check can need: finished, no live ask, none sent since `dayStart`. */
  async retire(store: Store, dayStart: number): Promise<void> {
    for (const id of this.ids) {
      const request = (await store.requests.get(id));
      if (!request || !FINAL_STATUSES.has(request.status)) continue;
      const asks = (await store.asks.listFor(id));
      if (asks.every((a) => a.state !== 'open' && a.state !== 'queued' && (a.sent_at === null || a.sent_at < dayStart))) this.ids.delete(id);
    }
  }
}

function expertsFor(variant: number) {
  const ids = EXPERT_IDS;
  return ids.map((id, i) => ({
    id,
    name: `${id[0]!.toUpperCase()}${id.slice(1)} Expert`,
    topics: [TOPICS[(i + variant) % TOPICS.length]!, TOPICS[(i + variant + 3) % TOPICS.length]!],
    // A chain: ana → ben → cho → … → hal; every third expert has no escalation target.
    ...(i % 3 !== 2 && i < ids.length - 1 ? { escalation_to: ids[i + 1] } : {}),
  }));
}

/** A transport that checks every ask when it is handed over: the checks are the invariants. */
class CheckingTransport implements Transport {
  readonly name = 'console' as const;
  readonly threaded = false;
  sent = 0;
  service: ExpertqService | null = null;
  constructor(
    private readonly clock: FakeClock,
    private readonly violations: string[],
    private readonly tracked: Tracked,
  ) {}

  async send(m: OutboundMessage): Promise<void> {
    if (m.purpose !== 'ask') return;
    this.sent++;
    const service = this.service!;
    const now = this.clock.now();
    const where = `ask ${m.askId} to ${m.expertId} at ${new Date(now).toISOString()}`;
    const ask = (await service.store.asks.get(m.askId!));
    const sentAt = ask?.sent_at ?? now;
    if (isQuietAt(sentAt, TZ, QUIET)) this.violations.push(`${where}: sent inside quiet hours`);
    if ((await service.store.asks.isMuted(m.expertId)) && ask?.state === 'open') this.violations.push(`${where}: sent to a muted expert`);
    const open = (await service.store.asks.openOf(m.expertId)).length;
    if (open > MAX_OPEN) this.violations.push(`${where}: ${open} open asks, above max_open_asks_per_expert ${MAX_OPEN}`);
    const dayStart = startOfLocalDay(sentAt, TZ);
    const today = (await this.tracked.asks(service.store)).filter((a) => a.expert_id === m.expertId && a.sent_at !== null && a.sent_at >= dayStart && a.sent_at < dayStart + 30 * HOUR).length;
    if (today > MAX_PER_DAY) this.violations.push(`${where}: ${today} asks today, above max_asks_per_expert_per_day ${MAX_PER_DAY}`);
    const e = m.elements ?? [];
    const six = e.length === 6 && /automated assistant/.test(e[0]!) && /is asking because/.test(e[1]!) && /^Question: /.test(e[2]!) &&
      /one- or two-sentence/.test(e[3]!) && /after human review/.test(e[4]!) && /`mute`.*`skip`/.test(e[5]!);
    if (!six) this.violations.push(`${where}: the six elements are not all there in order: ${JSON.stringify(e)}`);
  }

  async start(_inbound: Inbound): Promise<void> {}
  async stop(): Promise<void> {}
}

export async function simulate(options: { seed: number; requests: number; engine?: 'sqlite' | 'postgres'; log?: (line: string) => void }): Promise<SimulationResult> {
  const started = Date.now();
  const rand = seededRandom(options.seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
  const violations: string[] = [];
  const figures: Record<string, number> = {
    requests: 0, asks_sent: 0, answers: 0, skips: 0, mutes: 0, unmutes: 0, accepts: 0, rejects: 0, cancels: 0,
    put_experts: 0, restarts: 0, midnights: 0, dst_changes: 0, ticks: 0, invariant_checks: 0,
  };
  const dir = mkdtempSync(join(tmpdir(), 'expertq-sim-'));
  const configFile = join(dir, 'service.yaml');
  writeFileSync(configFile, stringify({
    org: { name: 'Sim Org', timezone: TZ },
    defaults: { escalation_after: '1h', give_up_after: '10h', quiet_hours: QUIET, max_open_asks_per_expert: MAX_OPEN, max_asks_per_expert_per_day: MAX_PER_DAY },
    experts: expertsFor(0),
    topics: { security: { fallback: 'hal' } },
  }));
  // Late March: the first days cross the spring DST change; October is reached by a long jump later.
  const clock = new FakeClock(Date.parse('2026-03-27T09:00:00Z'));
  const log = pino({ level: 'silent' });
  const tracked = new Tracked();
  const transport = new CheckingTransport(clock, violations, tracked);
  let config: Config = loadConfig(configFile);
  // PostgreSQL: a fresh database on the test server, opened again at each restart like the SQLite file.
  const database = `eq_sim_${options.seed}_${process.pid}`;
  const pgUrl = options.engine === 'postgres' ? await createTestDatabase(database) : null;
  const openEngine = async (): Promise<Store> => (pgUrl === null ? openSqliteStore(config.storagePath) : openPgStore({ url: pgUrl, poolSize: 4 }));
  let store = await openEngine();
  const open = () => {
    const service: ExpertqService = new ExpertqService({ config, store, transport, log, clock, scheduler: (engine) => new Scheduler(engine) });
    transport.service = service;
    return service;
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

  const check = async () => {
    figures.invariant_checks!++;
    const now = clock.now();
    const dayStart = startOfLocalDay(now, TZ);
    const asks = await tracked.asks(store);
    for (const e of await service.listExperts()) {
      const open = (await store.asks.openOf(e.id)).length;
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
    }
    await tracked.retire(store, dayStart);
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
        await tryOp(() => service.decide(p.id, accept ? 'accepted' : 'rejected', { decided_by: 'sim-reviewer', ...(accept ? {} : { reason: 'no' }) }));
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
    } else if (roll < 0.855) {
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
  figures.asks_sent = transport.sent;
  await service.idle();
  await store.close();
  if (pgUrl !== null) await dropTestDatabase(database);
  rmSync(dir, { recursive: true, force: true });
  return { seed: options.seed, requests: figures.requests!, figures, violations, elapsedMs: Date.now() - started };
}

/** The figures as the `npm run simulate` report prints them. */
export function report(r: SimulationResult): string {
  const lines = Object.entries(r.figures).map(([k, v]) => `  ${k.padEnd(18)} ${v.toLocaleString('en-US')}`);
  return [
    `simulation: seed ${r.seed}, ${r.requests.toLocaleString('en-US')} requests, ${(r.elapsedMs / 1000).toFixed(1)} s`,
    ...lines,
    `  violations         ${r.violations.length}`,
    ...r.violations.slice(0, 20).map((v) => `    ${v}`),
  ].join('\n');
}
