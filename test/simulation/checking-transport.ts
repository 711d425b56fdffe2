import { startOfLocalDay, startOfNextLocalDay } from '../../src/core/local-time.js';
import type { AskRecord } from '../../src/domain/records.js';
import type { ExpertqService } from '../../src/service/expertq-service.js';
import type { Store } from '../../src/store/store.js';
import type { Inbound, OutboundMessage, Transport } from '../../src/transport/transport.js';
import { PRESENCE_TTL_MS } from '../../src/service/engine/presence-cache.js';
import type { FakeClock } from '../support/fake-clock.js';
import type { DndSchedule } from './dnd-windows.js';
import { inQuietHours, inWorkingHours, type AwayLog } from './protection-rules.js';
import { maxOpenOf, maxPerDayOf, zoneOf } from './sim-experts.js';

const FINAL_STATUSES = new Set(['accepted', 'rejected', 'failed']);

/**
 * The requests whose asks may still count against an expert's limits: every request submitted, until
 * it is finished and none of its asks is live or was sent since the start of the checked day. The
 * checker reads their asks through the store, independently of the counts the service keeps.
 */
export class Tracked {
  readonly ids = new Set<string>();

  async asks(store: Store): Promise<AskRecord[]> {
    return (await Promise.all([...this.ids].map((id) => store.asks.listFor(id)))).flat();
  }

  /** Stops tracking the requests no later check can need: finished, no live ask, none sent since `dayStart`. */
  async retire(store: Store, dayStart: number): Promise<void> {
    for (const id of this.ids) {
      const request = await store.requests.get(id);
      if (!request || !FINAL_STATUSES.has(request.status)) continue;
      const asks = await store.asks.listFor(id);
      if (asks.every((a) => a.state !== 'open' && a.state !== 'queued' && (a.sent_at === null || a.sent_at < dayStart))) this.ids.delete(id);
    }
  }
}

/** How many sends each rule was checked on (every ask handed to the transport is checked on each). */
export interface SendChecks {
  working_hours: number;
  quiet_hours: number;
  away: number;
  away_status: number;
  dnd: number;
  mute: number;
  open_cap: number;
  daily_cap: number;
  elements: number;
}

/**
 * A transport that checks every ask when it is handed over, at the instant the ask was sent (its
 * `sent_at`): the expert was inside their working hours in their own zone, outside the organisation's
 * quiet hours, not away by the spells the simulation set and ended, not in a Slack do-not-disturb
 * window expertq could know of (one begun at least `PRESENCE_TTL_MS` before: expertq reads each
 * expert's Slack state at most that often, so a window's first minutes may pass unseen; those sends are
 * counted apart), not showing a Slack away status begun that long before (same reason), not muted,
 * within their own caps (or the defaults), and the message has its six elements.
 */
export class CheckingTransport implements Transport {
  readonly name = 'console' as const;
  readonly threaded = false;
  sent = 0;
  readonly checked: SendChecks = { working_hours: 0, quiet_hours: 0, away: 0, away_status: 0, dnd: 0, mute: 0, open_cap: 0, daily_cap: 0, elements: 0 };
  /** Sends in the first `PRESENCE_TTL_MS` of a do-not-disturb window, before expertq must have seen it. */
  sentAsDndBegan = 0;
  /** Sends in the first `PRESENCE_TTL_MS` of an away status, before expertq must have seen it. */
  sentAsAwayBegan = 0;
  /** Sends per expert time zone, to show every zone (the half-hour ones too) was exercised. */
  readonly byZone = new Map<string, number>();
  service: ExpertqService | null = null;
  constructor(
    private readonly clock: FakeClock,
    private readonly violations: string[],
    private readonly tracked: Tracked,
    private readonly aways: AwayLog,
    private readonly dnd: DndSchedule,
  ) {}

  async send(m: OutboundMessage): Promise<void> {
    if (m.purpose !== 'ask') return;
    this.sent++;
    const store = this.service!.store;
    const now = this.clock.now();
    const ask = await store.asks.get(m.askId!);
    const sentAt = ask?.sent_at ?? now;
    const expert = m.expertId;
    const where = `ask ${m.askId} to ${expert} sent at ${new Date(sentAt).toISOString()}`;
    const fail = (rule: string) => this.violations.push(`${where}: ${rule}`);
    this.byZone.set(zoneOf(expert), (this.byZone.get(zoneOf(expert)) ?? 0) + 1);

    this.checked.working_hours++;
    if (!inWorkingHours(expert, sentAt)) fail(`outside their working hours in ${zoneOf(expert)}`);
    this.checked.quiet_hours++;
    if (inQuietHours(sentAt)) fail('inside quiet hours');
    this.checked.away++;
    const spell = this.aways.at(expert, sentAt);
    if (spell) fail(`away from ${new Date(spell.from).toISOString()} until ${new Date(spell.to).toISOString()}`);
    this.checked.away_status++;
    const status = this.dnd.awayAt(expert, sentAt);
    if (status && sentAt >= status.from + PRESENCE_TTL_MS) {
      fail(`showing an away status from ${new Date(status.from).toISOString()} until ${new Date(status.to).toISOString()}`);
    } else if (status) this.sentAsAwayBegan++;
    this.checked.dnd++;
    const snooze = this.dnd.at(expert, sentAt);
    if (snooze && sentAt >= snooze.from + PRESENCE_TTL_MS) {
      fail(`in do-not-disturb from ${new Date(snooze.from).toISOString()} until ${new Date(snooze.to).toISOString()}`);
    } else if (snooze) this.sentAsDndBegan++;
    this.checked.mute++;
    if ((await store.asks.isMuted(expert)) && ask?.state === 'open') fail('sent to a muted expert');

    this.checked.open_cap++;
    const open = (await store.asks.openOf(expert)).length;
    if (open > maxOpenOf(expert)) fail(`${open} open asks, above their cap of ${maxOpenOf(expert)}`);
    this.checked.daily_cap++;
    const zone = zoneOf(expert);
    const [dayStart, dayEnd] = [startOfLocalDay(sentAt, zone), startOfNextLocalDay(sentAt, zone)];
    const today = (await this.tracked.asks(store)).filter((a) => a.expert_id === expert && a.sent_at !== null && a.sent_at >= dayStart && a.sent_at < dayEnd).length;
    if (today > maxPerDayOf(expert)) fail(`${today} asks on their day in ${zone}, above their cap of ${maxPerDayOf(expert)}`);

    this.checked.elements++;
    const e = m.elements ?? [];
    const six = e.length === 6 && /automated assistant/.test(e[0]!) && /is asking because/.test(e[1]!) && /^Question: /.test(e[2]!) &&
      /one- or two-sentence/.test(e[3]!) && /after human review/.test(e[4]!) && /`mute`.*`skip`/.test(e[5]!);
    if (!six) fail(`the six elements are not all there in order: ${JSON.stringify(e)}`);
  }

  async start(_inbound: Inbound): Promise<void> {}
  async stop(): Promise<void> {}
}
