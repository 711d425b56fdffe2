import type { AskRecord, AwayState, ExpertLiveState } from '../domain/records.js';
import type { AskPatch, DueCursor, WaitingAsk } from './store.js';

/** Asks, the live state of experts they make up (counts, mute), and the ask-side due work. */
export interface AskReads {
  get(id: string): Promise<AskRecord | undefined>;
  /** A request's asks, oldest first. */
  listFor(requestId: string): Promise<AskRecord[]>;
  /** Every ask of each of `requestIds`, in one read: by request, each oldest first. */
  listForMany(requestIds: readonly string[]): Promise<Map<string, AskRecord[]>>;
  /** The ask an expert's reply belongs to: on that request, or else the expert's oldest open ask. */
  findForReply(expertId: string, requestId: string | null): Promise<AskRecord | undefined>;
  /** An expert's open asks, oldest sent first. */
  openOf(expertId: string): Promise<AskRecord[]>;
  /**
   * Live state per expert; `ids` null means every expert with any state. `asksToday` counts from
   * `dayStart`, or for an expert in `dayStarts` (one in another time zone) from their own day's start.
   * `settled`: exact now even in a transaction that routes optimistically (one may otherwise be a
   * moment old).
   */
  expertStates(ids: readonly string[] | null, dayStart: number, dayStarts?: ReadonlyMap<string, number>, settled?: boolean): Promise<Map<string, ExpertLiveState>>;
  /** Whether an expert is muted (cheaper than `expertStates` when only this matters). */
  isMuted(expertId: string): Promise<boolean>;
  /** Away spells of these experts (or of every expert: null), ended or not: callers compare `until` with their clock. */
  aways(expertIds: readonly string[] | null): Promise<Map<string, AwayState>>;
  /** Experts whose away spell ends at or before `now`, with its end (for `endAway`). */
  dueAways(now: number): Promise<Array<{ expert_id: string; until: number }>>;
  /** Open asks whose `escalate_at` has passed, by (escalate_at, id) after `after`. */
  dueEscalations(now: number, after: DueCursor | null, limit: number): Promise<AskRecord[]>;
  /** Queued asks whose quiet hours have ended (`send_after <= now`). */
  dueQueued(now: number): Promise<WaitingAsk[]>;
  /** Queued asks of these experts, or of every expert when `expertIds` is null. */
  queued(expertIds: readonly string[] | null): Promise<WaitingAsk[]>;
}

/** The caps an ask was sent under (null: none). */
export interface AskCaps {
  maxOpenAsks: number | null;
  maxAsksToday: number | null;
}

export interface AskRepository extends AskReads {
  /**
   * An ask was just sent to this expert at `now`, under these caps. A transaction that routes
   * optimistically (`TransactionOptions.optimisticRouting`) checks at commit that the expert is still
   * within them (the tightest of its asks to them, its own asks counted) and neither muted nor away;
   * elsewhere this is a no-op.
   */
  placedUnder(expertId: string, caps: AskCaps, now: number): void;
  insert(ask: AskRecord): Promise<void>;
  update(id: string, patch: AskPatch): Promise<void>;
  setMuted(expertId: string, muted: boolean, at: number): Promise<void>;
  /** Sets (or, null, clears) an expert's away spell. */
  setAway(expertId: string, away: AwayState | null, at: number): Promise<void>;
  /**
   * Ends an away spell that ends at `until`; false (no change) when it is not there any more (ended,
   * or set again, by another instance or a reviewer): so a spell ends once however many ask.
   */
  endAway(expertId: string, until: number, at: number): Promise<boolean>;
}
