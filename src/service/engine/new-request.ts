import type { RequestRecord } from '../../domain/records.js';
import type { RequestPatch, Tx } from '../../store/store.js';
import { countNewRequest } from './insight-counts.js';
import { unwritten } from './unwritten-request.js';

export { isNewRequest, newRequest } from './unwritten-request.js';

/** Writes the submitted request as it now is (once: later calls do nothing). */
export async function writeNewRequest(tx: Tx, request: RequestRecord): Promise<void> {
  if (!unwritten.delete(request)) return;
  await tx.requests.insert(request);
  await countNewRequest(tx, request);
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
