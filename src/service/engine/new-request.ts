import type { RequestRecord } from '../../domain/records.js';
import type { RequestPatch, Tx } from '../../store/store.js';

/**
 * Requests being submitted, not written yet. A submit writes its request once, after routing, in the
 * state routing left it in (asked, held or failed) rather than inserting it queued and updating it:
 * one write instead of two, and the request's indexes are maintained once. The rows routing writes
 * first (audit, asks, messages) refer to it; the store checks those references at commit.
 */
const unwritten = new WeakSet<RequestRecord>();

/** A request object for a submit: changes made through `updateRequest` stay in it until `writeNewRequest`. */
export function newRequest(request: RequestRecord): RequestRecord {
  unwritten.add(request);
  return request;
}

/** Whether `request` is being submitted in this transaction (not written yet). */
export function isNewRequest(request: RequestRecord): boolean {
  return unwritten.has(request);
}

/** Writes the submitted request as it now is (once: later calls do nothing). */
export async function writeNewRequest(tx: Tx, request: RequestRecord): Promise<void> {
  if (unwritten.delete(request)) await tx.requests.insert(request);
}

/** Stored requests whose changes are gathered into one write (`gatherChanges`), with the changes so far. */
const gathered = new WeakMap<RequestRecord, RequestPatch>();

/**
 * From now on, changes to `request` through `updateRequest` are made to the object only, until
 * `writeChanges` writes them together: a draft that ends and the ask it lets out change the row once.
 */
export function gatherChanges(request: RequestRecord): void {
  gathered.set(request, {});
}

/** Writes the changes gathered for `request` (if any) and stops gathering them. */
export async function writeChanges(tx: Tx, request: RequestRecord): Promise<void> {
  const patch = gathered.get(request);
  if (!patch) return;
  gathered.delete(request);
  if (Object.keys(patch).length > 0) await tx.requests.update(request.id, patch);
}

/** Applies a change to a request: to the object, and to the stored row unless the request is not written yet or its changes are gathered. */
export async function updateRequest(tx: Tx, request: RequestRecord, patch: RequestPatch): Promise<void> {
  Object.assign(request, patch);
  const pending = gathered.get(request);
  if (pending) Object.assign(pending, patch);
  else if (!unwritten.has(request)) await tx.requests.update(request.id, patch);
}
