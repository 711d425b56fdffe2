/** Where a piece of waiting work stands in line. */
export interface WaitingKey {
  /** The request's submission time. */
  submittedAt: number;
  requestId: string;
  /** When this ask (or the held request) was planned. */
  createdAt: number;
  id: string;
}

/**
 * Waiting work goes out in submission order ("in submission order"): the request submitted
 * first is served first, whether it waits as a queued ask or as a held request; ids (ULIDs, which
 * sort by creation) break ties between equal timestamps.
 */
export function compareWaiting(a: WaitingKey, b: WaitingKey): number {
  return (
    a.submittedAt - b.submittedAt ||
    cmp(a.requestId, b.requestId) ||
    a.createdAt - b.createdAt ||
    cmp(a.id, b.id)
  );
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
