/**
 * The simulated organisation's experts. Each keeps its time zone, working hours and caps in every
 * registry variant the simulation swaps between (only topics change), so the checker can hold each
 * send against one table. The zones span five offsets, two of them half-hour ones (Kolkata +5:30,
 * Adelaide +9:30/+10:30), on both sides of the organisation's own (Europe/Berlin).
 */
export const ORG_TZ = 'Europe/Berlin';
export const QUIET: [string, string] = ['22:00', '07:00'];
export const MAX_OPEN = 2;
export const MAX_PER_DAY = 4;
export const TOPICS = ['billing', 'payments', 'payroll', 'tax', 'refunds', 'deployments', 'kubernetes', 'security'];

/** One working-hours range, stated independently of the service's parser: ISO weekdays and local minutes `[from, to)`. */
export interface SimRange {
  days: readonly number[];
  from: number;
  to: number;
}

export interface SimExpert {
  id: string;
  /** null: the organisation's zone. */
  timezone: string | null;
  /** The registry text and the same hours as ranges; null: any time. */
  hours: { text: string; ranges: readonly SimRange[] } | null;
  max_open_asks?: number;
  max_asks_per_day?: number;
}

const h = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3));
const WEEK = { text: 'Mon-Fri 09:00-17:00', ranges: [{ days: [1, 2, 3, 4, 5], from: h('09:00'), to: h('17:00') }] };
const SPLIT = {
  text: 'Mon-Thu 09:00-17:00, Fri 09:00-13:00',
  ranges: [
    { days: [1, 2, 3, 4], from: h('09:00'), to: h('17:00') },
    { days: [5], from: h('09:00'), to: h('13:00') },
  ],
};

export const SIM_EXPERTS: readonly SimExpert[] = [
  { id: 'ana', timezone: 'Europe/Berlin', hours: WEEK },
  { id: 'ben', timezone: 'America/New_York', hours: SPLIT },
  { id: 'cho', timezone: 'Asia/Singapore', hours: WEEK, max_open_asks: 1 },
  { id: 'dev', timezone: 'Asia/Kolkata', hours: SPLIT, max_asks_per_day: 2 },
  { id: 'eli', timezone: 'Australia/Adelaide', hours: WEEK, max_asks_per_day: 6 },
  { id: 'fay', timezone: 'America/New_York', hours: null },
  { id: 'gus', timezone: null, hours: null },
  { id: 'hal', timezone: 'Asia/Kolkata', hours: null, max_open_asks: 3 },
];

/** Every variant of the registry names these experts (their topics change). */
export const EXPERT_IDS = SIM_EXPERTS.map((e) => e.id);
const byId = new Map(SIM_EXPERTS.map((e) => [e.id, e]));

export function simExpert(id: string): SimExpert {
  const e = byId.get(id);
  if (!e) throw new Error(`no simulated expert ${id}`);
  return e;
}

/** The zone an expert's day and working hours are read in. */
export const zoneOf = (id: string) => simExpert(id).timezone ?? ORG_TZ;
export const maxOpenOf = (id: string) => simExpert(id).max_open_asks ?? MAX_OPEN;
export const maxPerDayOf = (id: string) => simExpert(id).max_asks_per_day ?? MAX_PER_DAY;

/** The simulated experts' addresses, and the expert at one. */
export const emailOf = (id: string) => `${id}@sim.example`;
export const slackOf = (id: string) => `U${id.toUpperCase()}`;
export const idAt = (address: string) => (address.includes('@') ? address.slice(0, address.indexOf('@')) : address.slice(1).toLowerCase());
/** Experts whose Slack account is deactivated: Slack refuses them for good, and their asks go by email. */
export const SLACK_INACTIVE: ReadonlySet<string> = new Set(['cho']);

/** Registry variant `variant`: topics rotate; zones, hours and caps stay. */
export function expertsFor(variant: number) {
  return SIM_EXPERTS.map((e, i) => ({
    id: e.id,
    name: `${e.id[0]!.toUpperCase()}${e.id.slice(1)} Expert`,
    topics: [TOPICS[(i + variant) % TOPICS.length]!, TOPICS[(i + variant + 3) % TOPICS.length]!],
    // A chain: ana → ben → cho → … → hal; every third expert has no escalation target.
    ...(i % 3 !== 2 && i < SIM_EXPERTS.length - 1 ? { escalation_to: SIM_EXPERTS[i + 1]!.id } : {}),
    // Everyone has email; every other expert also Slack, asked there first (email when Slack refuses them).
    email: emailOf(e.id),
    ...(i % 2 === 0 ? { slack: slackOf(e.id) } : {}),
    ...(e.timezone !== null ? { timezone: e.timezone } : {}),
    ...(e.hours !== null ? { working_hours: e.hours.text } : {}),
    ...(e.max_open_asks !== undefined ? { max_open_asks: e.max_open_asks } : {}),
    ...(e.max_asks_per_day !== undefined ? { max_asks_per_day: e.max_asks_per_day } : {}),
  }));
}
