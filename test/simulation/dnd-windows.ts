import type { Presence } from '../../src/transport/transport.js';
import { EXPERT_IDS } from './sim-experts.js';

const HOUR = 3_600_000;
const MINUTE = 60_000;
const AWAY_SLOT = 6 * HOUR;

/** A do-not-disturb window: `[from, to)`. */
export interface DndWindow {
  from: number;
  to: number;
}

/**
 * The simulated experts' Slack do-not-disturb and away statuses, as Slack would report them. Half the
 * experts snooze now and then, in any hour with a chance of one in five, from a random minute of that
 * hour for 15 to 90 minutes. Any expert may show an away status (a palm tree with "clear after"): in
 * any six hours with a chance of one in eight, from a random minute of them for 1 to 12 hours. A pure
 * function of the seed, the expert and the time (however far the clock jumps), so the checker and the
 * presence lookups read the same windows; written apart from the service's code.
 */
export class DndSchedule {
  /** What the service asked "Slack": lookups, those that found do-not-disturb on, and those that found an away status. */
  readonly figures = { dnd_lookups: 0, dnd_lookups_on: 0, away_status_lookups: 0 };
  private readonly users: ReadonlySet<string>;

  constructor(private readonly seed: number) {
    this.users = new Set(EXPERT_IDS.filter((_, i) => i % 2 === seed % 2));
  }

  /** The window in force at `ms`, if any (a window may reach into the next hours: up to two are looked back). */
  at(expertId: string, ms: number): DndWindow | undefined {
    if (!this.users.has(expertId)) return undefined;
    const slot = Math.floor(ms / HOUR);
    for (let k = slot; k >= slot - 2; k--) {
      const w = this.windowOf(expertId, k);
      if (w && w.from <= ms && ms < w.to) return w;
    }
    return undefined;
  }

  /** The away status shown at `ms`, if any (a status may last into the next two six-hour slots). */
  awayAt(expertId: string, ms: number): DndWindow | undefined {
    const slot = Math.floor(ms / AWAY_SLOT);
    for (let k = slot; k >= slot - 2; k--) {
      const r = hash(`${this.seed}:away:${expertId}:${k}`);
      if (r % 8 !== 0) continue;
      const from = k * AWAY_SLOT + ((r >>> 3) % 360) * MINUTE;
      const w = { from, to: from + (1 + ((r >>> 12) % 12)) * HOUR };
      if (w.from <= ms && ms < w.to) return w;
    }
    return undefined;
  }

  /** The lookup the service makes (`dnd.info`, `users.profile.get`): what is in force at `ms`, until when. */
  presenceAt(expertId: string, ms: number): Presence {
    this.figures.dnd_lookups++;
    const w = this.at(expertId, ms);
    if (w) this.figures.dnd_lookups_on++;
    const away = this.awayAt(expertId, ms);
    if (away) this.figures.away_status_lookups++;
    return { dndUntil: w ? w.to : null, awayUntil: away ? away.to : null };
  }

  private windowOf(expertId: string, slot: number): DndWindow | undefined {
    const r = hash(`${this.seed}:${expertId}:${slot}`);
    if (r % 5 !== 0) return undefined;
    const from = slot * HOUR + ((r >>> 3) % 60) * MINUTE;
    return { from, to: from + (15 + ((r >>> 9) % 76)) * MINUTE };
  }
}

/** FNV-1a over the text: a well-spread 32-bit number for each (seed, expert, hour). */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
