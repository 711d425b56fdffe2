import type { ExpertChannel } from '../../src/domain/channels.js';

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
  /**
   * Where they are reached: `slack` (and email, in the default order slack, teams, email), `teams`
   * alone (no other address), `teams_email` (`channels: [teams, email]`), or `email` alone.
   */
  reach: 'slack' | 'teams' | 'teams_email' | 'email';
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
  { id: 'ana', timezone: 'Europe/Berlin', hours: WEEK, reach: 'slack' },
  { id: 'ben', timezone: 'America/New_York', hours: SPLIT, reach: 'teams' },
  { id: 'cho', timezone: 'Asia/Singapore', hours: WEEK, max_open_asks: 1, reach: 'slack' },
  { id: 'dev', timezone: 'Asia/Kolkata', hours: SPLIT, max_asks_per_day: 2, reach: 'teams_email' },
  { id: 'eli', timezone: 'Australia/Adelaide', hours: WEEK, max_asks_per_day: 6, reach: 'slack' },
  { id: 'fay', timezone: 'America/New_York', hours: null, reach: 'teams_email' },
  { id: 'gus', timezone: null, hours: null, reach: 'teams' },
  { id: 'hal', timezone: 'Asia/Kolkata', hours: null, max_open_asks: 3, reach: 'email' },
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

/** The simulated experts' addresses (a Teams address is an Entra object id spelling the expert's id in hex), and the expert at one. */
export const emailOf = (id: string) => `${id}@sim.example`;
export const slackOf = (id: string) => `U${id.toUpperCase()}`;
export const teamsOf = (id: string) => `00000000-0000-4000-8000-${Buffer.from(id).toString('hex').padStart(12, '0')}`;
const TEAMS_ADDRESS = /^00000000-0000-4000-8000-([0-9a-f]{12})$/i;
export function idAt(address: string): string {
  const teams = TEAMS_ADDRESS.exec(address);
  if (teams) return Buffer.from(teams[1]!.replace(/^(00)+/, ''), 'hex').toString();
  return address.includes('@') ? address.slice(0, address.indexOf('@')) : address.slice(1).toLowerCase();
}
/** Experts whose Slack account is deactivated: Slack refuses them for good, and their asks go by email. */
export const SLACK_INACTIVE: ReadonlySet<string> = new Set(['cho']);
/** Experts who never installed the Teams app: Teams cannot reach them (`not_installed`), and their asks go by email. */
export const TEAMS_NOT_INSTALLED: ReadonlySet<string> = new Set(['fay']);

/** An expert's addresses and channel preference, by where they are reached. */
function addressesOf(e: SimExpert): { slack?: string; teams?: string; email?: string; channels?: ExpertChannel[] } {
  switch (e.reach) {
    case 'slack':
      return { slack: slackOf(e.id), email: emailOf(e.id) };
    case 'teams':
      return { teams: teamsOf(e.id) };
    case 'teams_email':
      return { teams: teamsOf(e.id), email: emailOf(e.id), channels: ['teams', 'email'] };
    case 'email':
      return { email: emailOf(e.id) };
  }
}

/** Registry variant `variant`: topics rotate; zones, hours and caps stay. */
export function expertsFor(variant: number) {
  return SIM_EXPERTS.map((e, i) => ({
    id: e.id,
    name: `${e.id[0]!.toUpperCase()}${e.id.slice(1)} Expert`,
    topics: [TOPICS[(i + variant) % TOPICS.length]!, TOPICS[(i + variant + 3) % TOPICS.length]!],
    // A chain: ana → ben → cho → … → hal; every third expert has no escalation target.
    ...(i % 3 !== 2 && i < SIM_EXPERTS.length - 1 ? { escalation_to: SIM_EXPERTS[i + 1]!.id } : {}),
    // Slack first then email, Teams alone, Teams then email, or email alone (a permanent refusal moves an ask on).
    ...addressesOf(e),
    ...(e.timezone !== null ? { timezone: e.timezone } : {}),
    ...(e.hours !== null ? { working_hours: e.hours.text } : {}),
    ...(e.max_open_asks !== undefined ? { max_open_asks: e.max_open_asks } : {}),
    ...(e.max_asks_per_day !== undefined ? { max_asks_per_day: e.max_asks_per_day } : {}),
  }));
}
