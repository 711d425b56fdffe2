import type { InstanceRecord } from '../store.js';

/**
 * What this version reads and writes of a database that several instances share, as a number each
 * instance registers (`instances.generation`; 0 for the versions before it). During a rolling upgrade
 * an older instance still serves from the same database, so what it reads is written for it until no
 * instance of an earlier generation is live.
 *
 * 1: a request's submitter is its subscriber by being its submitter (`requests.consumer_id`); only
 * consumers attached later (deduplication) have a row in `request_subscribers`. An ask message's text
 * is stored once, as its elements (`messageText`). Generation 0 reads every subscriber, the submitter
 * too, from that table, and an ask's text from its `text`.
 */
export const STORE_GENERATION = 1;

/** Whether an instance of an earlier generation may be serving, as the instances' rows last said. */
export class OlderInstances {
  /** Until the rows are first read, one may be. */
  private live = true;

  note(instances: readonly InstanceRecord[]): void {
    this.live = instances.some((i) => (i.generation ?? 0) < STORE_GENERATION);
  }

  /** Whether what generation 0 reads is still to be written. */
  get mayServe(): boolean {
    return this.live;
  }
}
