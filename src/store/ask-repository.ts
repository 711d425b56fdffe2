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

/** One expert given asks on a hint, and the tightest caps those asks were sent under (null: none). */
export interface HintCheck {
  expertId: string;
  /** The start of the expert's day (their asks today count from it). */
  dayStart: number;
  maxOpenAsks: number | null;
  maxAsksToday: number | null;
}

export interface AskRepository extends AskReads {
  /**
   * For the rest of this transaction `expertStates` may answer, for an expert not read under their lock
   * yet, with a hint: their state as this instance read it a moment ago, without the lock (`settled`
   * asks for the locked read). Where several instances write (PostgreSQL), routing a submit then locks
   * only the experts it gives asks, not every candidate it weighs; the transaction must read those
   * again settled before it commits (`placedOnHints`) and check its decisions still hold. A no-op
   * where one process writes (SQLite): every read is settled there.
   */
  useHints(): void;
  /** Whether this transaction's view of an expert's state was read under their lock (always, without hints). */
  isSettled(expertId: string): boolean;
  /** Experts this transaction gave asks while its view of their state was a hint. */
  placedOnHints(): string[];
  /**
   * Has the commit check each decision made on a hint (`placedOnHints`): under the expert's lock, with
   * this transaction's own asks counted, the expert is neither muted nor away at `now` and within the
   * caps the asks were sent under. When one does not hold, the transaction fails with `StaleHints`
   * instead of committing. The check travels with the commit (no round trip of its own); what it reads
   * becomes the expert's settled state. A no-op where every read is settled (SQLite).
   */
  checkAtCommit(checks: readonly HintCheck[], now: number): void;
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
