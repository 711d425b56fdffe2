import type { MessageRecord } from '../../domain/records.js';
import type { AskPlace, MessageLease, Reads, Store, TransactionOptions, Tx } from '../../store/store.js';

/**
 * Asks written already leased to this process, to be sent as soon as their transaction commits: the
 * dispatcher then needs no claim (a read and a write of every message, and a commit) to find them.
 * Only asks are leased this way: the dispatcher checks that an ask is still open before it sends it,
 * so an ask whose savepoint was rolled back is dropped, never sent. Other messages go out through the
 * dispatcher's claim as before (`unleased` counts them, so it is woken only when there are some).
 */
export interface LeasedMessages {
  owner: string;
  leaseMs: number;
  /** The asks written with a lease, in the order written. */
  messages: MessageRecord[];
  /** Messages written without one in the same transaction. */
  unleased: number;
  /** Asks known to stand open at commit, with no earlier ask of their expert on their request (`noteFirstAsk`). */
  firstAsks: Set<string>;
}

/** Who sends the asks a transaction leases once it commits: this process's message dispatcher. */
export interface AskSender {
  readonly owner: string;
  readonly leaseMs: number;
  sendLeased(messages: readonly MessageRecord[], places?: ReadonlyMap<string, AskPlace>): void;
}

const byTransaction = new WeakMap<Tx, LeasedMessages>();

/**
 * Runs `work` with the asks it queues in `tx` written leased to `owner`; returns its result and those
 * asks. An engine may hand the same `tx` object to the transactions after this one, so the leasing
 * ends with `work`.
 */
export async function leasingAsks<T>(tx: Tx, owner: string, leaseMs: number, work: () => Promise<T>): Promise<{ value: T; leased: LeasedMessages }> {
  const leased: LeasedMessages = { owner, leaseMs, messages: [], unleased: 0, firstAsks: new Set() };
  byTransaction.set(tx, leased);
  try {
    return { value: await work(), leased };
  } finally {
    byTransaction.delete(tx);
  }
}

/** The lease to write `message` with in `tx` (listing it to be sent after commit), or none. */
export function leaseFor(tx: Tx, message: MessageRecord, now: number): MessageLease | undefined {
  const leased = byTransaction.get(tx);
  if (!leased) return undefined;
  if (message.purpose !== 'ask') {
    leased.unleased++;
    return undefined;
  }
  leased.messages.push(message);
  return { owner: leased.owner, leaseUntil: now + leased.leaseMs };
}

/**
 * Records that an ask sent in `tx` stands open at commit and is its expert's first ask on its request
 * (no thread to answer in), so its place costs no read after commit (`placesOf`). Work that may roll a
 * savepoint back after the send says so to `withLeasedAsks`: a rolled-back ask must be read to be found gone.
 */
export function noteFirstAsk(tx: Tx, askId: string): void {
  byTransaction.get(tx)?.firstAsks.add(askId);
}

const FIRST_ASK: AskPlace = { state: 'open', ref: null, firstRef: null };

/**
 * Runs `work` in a transaction whose asks are written leased to `sender`, and hands them to it once
 * the transaction commits, with where each stands then (`placesOf`). `rolledBack`: the work may have
 * rolled a savepoint back after noting an ask (then every ask's place is read). Returns the work's
 * value and the asks of the attempt that committed (a transaction run again writes its asks again).
 */
export async function withLeasedAsks<T>(
  store: Store,
  sender: AskSender,
  work: (tx: Tx) => Promise<T>,
  rolledBack = false,
  options: TransactionOptions = {},
): Promise<{ value: T; leased: LeasedMessages }> {
  const { value: done, read: places } = await store.transactionThenRead(
    (tx) => leasingAsks(tx, sender.owner, sender.leaseMs, () => work(tx)),
    (reads, { leased }) => placesOf(reads, leased.messages, rolledBack ? new Set() : leased.firstAsks),
    options,
  );
  sender.sendLeased(done.leased.messages, places);
  return done;
}

/** Where each ask message stands as of its commit, for the dispatcher: those in `firstAsks` cost no read, the rest are read. */
async function placesOf(reads: Reads, asks: readonly MessageRecord[], firstAsks: ReadonlySet<string>): Promise<Map<string, AskPlace>> {
  const others = asks.filter((m) => !firstAsks.has(m.ask_id!));
  const places = others.length > 0 ? await reads.chat.askPlaces(others.map((m) => m.ask_id!)) : new Map<string, AskPlace>();
  for (const m of asks) if (firstAsks.has(m.ask_id!)) places.set(m.ask_id!, FIRST_ASK);
  return places;
}
