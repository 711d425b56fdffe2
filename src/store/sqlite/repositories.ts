import type Database from 'better-sqlite3';
import type { ExpertStateMemo } from '../expert-state-memo.js';
import type { Repositories } from '../store.js';
import { SqliteAnswers } from './answers.js';
import { SqliteAsks } from './asks.js';
import { SqliteChat } from './chat.js';
import { SqliteConsumers } from './consumers.js';
import { SqliteInsights } from './insights.js';
import { PeriodZone } from '../shared/period-zone.js';
import { SqliteInstances } from './instances.js';
import { SqliteSessions } from './sessions.js';
import { SqliteVotes } from './votes.js';
import { SqliteLlmJobs } from './llm-jobs.js';
import { SqliteMetrics } from './metrics.js';
import { Outbox } from '../outbox.js';
import { SqliteDeliveries } from './deliveries.js';
import { SqliteMessages } from './messages.js';
import { SqliteProposals } from './proposals.js';
import { SqliteRequests } from './requests.js';
import { SqliteRetention } from './retention.js';
import { SqliteServiceState } from './service-state.js';
import type { SlowReads } from './worker-reader.js';

export interface RepositoryOptions {
  /** The writer's: experts' states read in the running transaction. */
  memo?: ExpertStateMemo | null;
  /** The reads that grow with history, off this thread when the engine can; without it, on `db`. */
  slow?: SlowReads | null;
  /** The time zone of the day and week insight rows, shared by the store's writes and reads. */
  zone?: PeriodZone;
}

/**
 * The SQLite repositories over one connection, each preparing its statements once. better-sqlite3
 * runs every statement synchronously, so each method has done its work when it returns; whether that
 * work is inside a transaction is the caller's (the store's) business, not theirs. The writer's
 * repositories get the store's `memo` of experts' states, which it forgets as each transaction starts;
 * the readers' get `slow`, where a text search, the metrics and library counts and a retention batch's pick run.
 */
export function createRepositories(db: Database.Database, { memo = null, slow = null, zone = new PeriodZone() }: RepositoryOptions = {}): Repositories {
  return {
    requests: new SqliteRequests(db),
    asks: new SqliteAsks(db, memo),
    proposals: new SqliteProposals(db),
    outbox: new Outbox(new SqliteMessages(db), new SqliteDeliveries(db)),
    consumers: new SqliteConsumers(db),
    chat: new SqliteChat(db),
    llmJobs: new SqliteLlmJobs(db),
    serviceState: new SqliteServiceState(db),
    retention: new SqliteRetention(db, slow),
    metrics: new SqliteMetrics(db, slow),
    instances: new SqliteInstances(db),
    sessions: new SqliteSessions(db),
    answers: new SqliteAnswers(db, slow),
    votes: new SqliteVotes(db),
    insights: new SqliteInsights(db, slow, zone),
  };
}
