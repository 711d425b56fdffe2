// Section: the scheduler tick. 100,000 open requests (each `asked`, with one open ask, none due), then
// (1) the idle tick, against a bare indexed SELECT on the same data as baseline; (2) a tick with 5,000
// give-ups due; (3) a tick with 5,000 escalations due. Targets: idle tick <= 20 ms (median), due work
// >= 5,000 transitions/s. Run alone with `node bench/scheduler.js` (after `npm run build`).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createLogger } from '../dist/log.js';
import { composeService } from '../dist/compose-service.js';
import { openSqliteStore } from '../dist/store/sqlite/sqlite-store.js';
import { generateExperts, topicPool } from './fixtures.js';
import { num, printHeading, printMachine, printRows } from './report.js';
import { discardStream } from './servers.js';

export const OPEN_REQUESTS = 100_000;
export const DUE = 5_000;
export const EXPERT_COUNT = 1_000;
export const IDLE_TICKS = 20;
/** Targets from issue 4. */
export const MAX_IDLE_MS = 20;
export const MIN_TRANSITIONS_PER_S = 5_000;

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.parse('2026-11-23T08:00:00Z');
const POLICY = {
  escalation_after: 2 * HOUR,
  give_up_after: DAY,
  quiet_hours: null,
  max_open_asks_per_expert: 1_000_000,
  max_asks_per_expert_per_day: 1_000_000,
};

/** A clock the bench moves by hand, as the tests do. */
class BenchClock {
  constructor(ms) {
    this.ms = ms;
  }
  now() {
    return this.ms;
  }
}

const silentTransport = { name: 'console', send: async () => {}, start: async () => {}, stop: async () => {} };

const ms = (start) => Number(process.hrtime.bigint() - start) / 1e6;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * 100,000 requests as submission would leave them, written straight through the store's own insert
 * methods in one transaction: status `asked`, one open ask each (spread over 1,000 experts), sent at T0,
 * escalating at T0 + 2 h, giving up at T0 + 1 d.
 */
async function seed(store, experts) {
  const ids = [];
  await store.transaction(async (tx) => {
    for (let i = 0; i < OPEN_REQUESTS; i++) {
      const n = String(i).padStart(6, '0');
      const created = T0 + i; // submission order
      const request = {
        id: `req_bench${n}`,
        consumer_id: `bench-bot-${i % 7}`,
        kind: 'answer',
        topic: experts[i % EXPERT_COUNT].topics[0],
        question: `What is the current state of case ${i}?`,
        context: { asked_because: `benchmark request ${i}` },
        target_experts: null,
        routing_policy: POLICY,
        dedup_key: null,
        status: 'asked',
        reason: null,
        proposal_id: null,
        held: false,
        drafting: false,
        asked_question: null,
        own_policy: null,
        give_up_at: created + DAY,
        warn_at: null,
        created_at: created,
        updated_at: created,
      };
      await tx.requests.insert(request);
      await tx.asks.insert({
        id: `ask_bench${n}`,
        request_id: request.id,
        expert_id: experts[i % EXPERT_COUNT].id,
        state: 'open',
        via: 'exact',
        created_at: created,
        sent_at: created,
        escalate_at: created + POLICY.escalation_after,
        closed_at: null,
        send_after: null,
      });
      ids.push(request.id);
    }
  });
  return ids;
}

/** Makes `count` deadlines of one kind due at `at`, spread over the data (every 20th row from `offset`). */
function makeDue(db, kind, count, offset, at) {
  const sql =
    kind === 'give_up'
      ? 'UPDATE requests SET give_up_at = ? WHERE id = ?'
      : "UPDATE asks SET escalate_at = ? WHERE id = ? AND state = 'open'";
  const stmt = db.prepare(sql);
  db.transaction(() => {
    for (let k = 0; k < count; k++) {
      const n = String(offset + k * 20).padStart(6, '0');
      stmt.run(at - 1 - (k % 1000), kind === 'give_up' ? `req_bench${n}` : `ask_bench${n}`);
    }
  })();
}

export async function benchScheduler() {
  printHeading('scheduler tick: 100,000 open requests');
  const dir = mkdtempSync(join(tmpdir(), 'expertq-bench-scheduler-'));
  const store = openSqliteStore(join(dir, 'expertq.db'));
  const db = store.db;
  const experts = generateExperts(EXPERT_COUNT, topicPool()).map((e, i) => ({
    ...e,
    escalation_to: i + 1 < EXPERT_COUNT ? `exp${String(i + 1).padStart(4, '0')}` : null,
  }));
  const clock = new BenchClock(T0 + HOUR);
  const service = composeService({
    config: { org: { name: 'Bench', timezone: 'Europe/Berlin' }, defaults: POLICY, topics: {}, experts, file: null },
    store,
    transport: silentTransport,
    log: createLogger(discardStream(), 'warn'),
    clock,
  });

  try {
    let start = process.hrtime.bigint();
    await seed(store, experts);
    console.log(`seeded ${num(OPEN_REQUESTS)} asked requests with one open ask each over ${num(EXPERT_COUNT)} experts in ${num(ms(start), 0)} ms`);

    // (1) Idle. The first tick after a start re-checks all waiting work (none here); then time it.
    await service.tick();
    await service.idle();
    const idle = [];
    for (let i = 0; i < IDLE_TICKS; i++) {
      clock.ms += 1_000;
      start = process.hrtime.bigint();
      const result = await service.tick();
      idle.push(ms(start));
      await service.idle();
      if (result.timed_out + result.escalated + result.sent + result.placed > 0) throw new Error('an idle tick did work');
    }
    const bare = db.prepare(`SELECT id FROM asks WHERE state = 'open' AND escalate_at <= ? ORDER BY escalate_at LIMIT 500`);
    const baseline = [];
    for (let i = 0; i < IDLE_TICKS; i++) {
      start = process.hrtime.bigint();
      bare.all(clock.ms);
      baseline.push(ms(start));
    }
    const idleMedian = median(idle);
    const baselineMedian = median(baseline);

    // (2) 5,000 give-ups due at once.
    clock.ms += 1_000;
    makeDue(db, 'give_up', DUE, 0, clock.ms);
    start = process.hrtime.bigint();
    const giveUps = await service.tick();
    const giveUpMs = ms(start);
    await service.idle();

    // (3) 5,000 escalations due at once (other requests: offset 10 interleaves with the give-ups).
    clock.ms += 1_000;
    makeDue(db, 'escalation', DUE, 10, clock.ms);
    start = process.hrtime.bigint();
    const escalations = await service.tick();
    const escalationMs = ms(start);
    await service.idle();

    const counts = Object.fromEntries(
      db.prepare('SELECT status || COALESCE(\':\' || reason_code, \'\') AS s, COUNT(*) AS n FROM requests GROUP BY s').all().map((r) => [r.s, r.n]),
    );
    const messages = db.prepare("SELECT COUNT(*) AS n FROM messages WHERE state = 'sent'").get().n;
    const events = db.prepare("SELECT COUNT(*) AS n FROM events WHERE type = 'request_failed'").get().n;

    const giveUpRate = (giveUps.timed_out / giveUpMs) * 1000;
    const escalationRate = (escalations.escalated / escalationMs) * 1000;
    const idleOk = idleMedian <= MAX_IDLE_MS;
    const giveUpOk = giveUps.timed_out === DUE && giveUpRate >= MIN_TRANSITIONS_PER_S;
    const escalationOk = escalations.escalated === DUE && escalationRate >= MIN_TRANSITIONS_PER_S;

    console.log('');
    printRows(
      [
        { key: 'what', label: 'tick', align: 'left' },
        { key: 'work', label: 'transitions' },
        { key: 'time', label: 'time ms' },
        { key: 'rate', label: 'transitions/s' },
        { key: 'target', label: 'target', align: 'left' },
        { key: 'verdict', label: '' , align: 'left' },
      ],
      [
        { what: `idle (median of ${IDLE_TICKS})`, work: '0', time: num(idleMedian, 3), rate: '', target: `<= ${MAX_IDLE_MS} ms`, verdict: idleOk ? 'PASS' : 'FAIL' },
        { what: 'idle (max)', work: '0', time: num(Math.max(...idle), 3), rate: '', target: '', verdict: '' },
        { what: `${num(DUE)} give-ups due`, work: num(giveUps.timed_out), time: num(giveUpMs, 1), rate: num(giveUpRate), target: `>= ${num(MIN_TRANSITIONS_PER_S)}/s`, verdict: giveUpOk ? 'PASS' : 'FAIL' },
        { what: `${num(DUE)} escalations due`, work: num(escalations.escalated), time: num(escalationMs, 1), rate: num(escalationRate), target: `>= ${num(MIN_TRANSITIONS_PER_S)}/s`, verdict: escalationOk ? 'PASS' : 'FAIL' },
      ],
    );
    console.log(
      `\nbaseline: bare indexed SELECT … WHERE state = 'open' AND escalate_at <= ? LIMIT 500 on the same data, median ${num(baselineMedian, 3)} ms; ` +
        `idle tick / baseline = ${(idleMedian / baselineMedian).toFixed(1)}x (the tick runs 3 such range queries, 3 transactions and wakes 2 dispatchers)`,
    );
    console.log(`state after the run: requests ${JSON.stringify(counts)}, request_failed events ${num(events)}, escalation messages sent ${num(messages)}`);

    const ok = idleOk && giveUpOk && escalationOk;
    return {
      name: 'scheduler',
      ok,
      summary:
        `scheduler: idle tick ${num(idleMedian, 3)} ms (<= ${MAX_IDLE_MS}) ${idleOk ? 'PASS' : 'FAIL'}, ` +
        `give-ups ${num(giveUpRate)}/s ${giveUpOk ? 'PASS' : 'FAIL'}, escalations ${num(escalationRate)}/s ${escalationOk ? 'PASS' : 'FAIL'} (>= ${num(MIN_TRANSITIONS_PER_S)}/s)`,
    };
  } finally {
    await service.idle();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  printMachine();
  const outcome = await benchScheduler();
  console.log(`\n${outcome.ok ? 'ok  ' : 'FAIL'}  ${outcome.summary}`);
  if (!outcome.ok) process.exitCode = 1;
}
