import type { Repositories } from '../store.js';
import { PgInsights } from './insights.js';
import { PeriodZone } from '../shared/period-zone.js';
import { PgInstances } from './instances.js';
import { PgSessions } from './sessions.js';
import { PgVotes } from './votes.js';
import { PgMetrics } from './metrics.js';
import { Outbox } from '../outbox.js';
import { PgDeliveries } from './deliveries.js';
import { PgMessages } from './messages.js';
import { PgRetention } from './retention.js';
import { PgAnswers } from './answers.js';
import { PgAsks } from './asks.js';
import { PgChat } from './chat.js';
import { PgConsumers } from './consumers.js';
import { PgLlmJobs } from './llm-jobs.js';
import { PgProposals } from './proposals.js';
import { PgRequests } from './requests.js';
import { PgServiceState } from './service-state.js';
import type { Db } from './sql.js';
import type { LoadHints } from './load-hints.js';
import type { OlderInstances } from './generation.js';

/**
 * The PostgreSQL repositories over one connection (inside a transaction, `locking` is true: reads of
 * an aggregate's root row take its row lock, so concurrent writers of one request, proposal or expert
 * wait for each other) or over the pool (reads outside transactions, each autocommitted). `hints`:
 * the instance's experts' states for routing (see `PgAsks`), which a transaction may use if `hintsAllowed`.
 * `older`: whether an instance of an earlier storage generation may be serving (null: assume one may).
 */
export function createPgRepositories(
  db: Db,
  locking: boolean,
  hints: LoadHints | null = null,
  hintsAllowed = true,
  older: OlderInstances | null = null,
  zone: PeriodZone = new PeriodZone(),
): Repositories {
  return {
    requests: new PgRequests(db, locking, older),
    asks: new PgAsks(db, locking, hints, hintsAllowed),
    proposals: new PgProposals(db, locking),
    outbox: new Outbox(new PgMessages(db, older), new PgDeliveries(db)),
    consumers: new PgConsumers(db, locking),
    chat: new PgChat(db, locking),
    llmJobs: new PgLlmJobs(db, locking),
    serviceState: new PgServiceState(db, locking),
    retention: new PgRetention(db, locking),
    metrics: new PgMetrics(db),
    instances: new PgInstances(db),
    sessions: new PgSessions(db),
    answers: new PgAnswers(db),
    votes: new PgVotes(db),
    insights: new PgInsights(db, zone),
  };
}
