import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Config } from '../config/load-config.js';
import type { ExpertRegistry } from '../core/expert-registry.js';
import { startOfLocalDay } from '../core/local-time.js';
import { newId } from '../ids.js';
import type { AuditEntry, EventRecord, EventType, ExpertLiveState, RequestRecord } from '../store/records.js';
import type { Store } from '../store/store.js';

/**
 * What every operation needs: the store, the clock, the current registry and configuration. Operations
 * are functions of an Engine so they can be called from HTTP routes, the scheduler and the SDK alike.
 */
export interface Engine {
  readonly store: Store;
  readonly clock: Clock;
  readonly log: Logger;
  readonly config: Pick<Config, 'org' | 'defaults' | 'topics'> & { file: string | null };
  /** Swapped whole by `PUT /experts`. */
  experts: ExpertRegistry;
  /** Name recorded in provenance (`console`, `chat`). */
  readonly transportName: string;
  /** Called after a transaction that queued messages to experts commits. */
  onMessagesQueued(): void;
  /** Called after a transaction that wrote events commits. */
  onEventsQueued(): void;
}

export function audit(engine: Engine, entry: Omit<AuditEntry, 'at'> & { at?: number }): void {
  engine.store.appendAudit({ at: entry.at ?? engine.clock.now(), ...entry } as AuditEntry);
}

/** Writes an event in the current transaction; delivery happens after commit (transactional outbox). */
export function emitEvent(
  engine: Engine,
  request: Pick<RequestRecord, 'id'>,
  type: EventType,
  fields: Record<string, unknown>,
  at: number,
): EventRecord {
  const id = newId('evt');
  const event: EventRecord = {
    id,
    request_id: request.id,
    type,
    created_at: at,
    body: { event: type, id, created_at: new Date(at).toISOString(), request_id: request.id, ...fields },
  };
  engine.store.insertEvent(event);
  return event;
}

export function dayStart(engine: Engine, now: number): number {
  return startOfLocalDay(now, engine.config.org.timezone);
}

export function liveStates(engine: Engine, ids: readonly string[] | null, now: number): Map<string, ExpertLiveState> {
  return engine.store.expertStates(ids, dayStart(engine, now));
}
