import type Database from 'better-sqlite3';
import { prepareAll } from './rows.js';
import { groupBy } from '../row-records.js';
import type { VoteRecord, VoteRepository } from '../vote-repository.js';
import { toVote, VOTE_COLUMNS, VOTES, voteValues } from '../shared/votes-sql.js';

/** Review votes in SQLite, keyed by proposal and person. */
export class SqliteVotes implements VoteRepository {
  private readonly stmts;

  constructor(db: Database.Database) {
    this.stmts = {
      ...prepareAll(db, VOTES),
      listMany: db.prepare(`SELECT ${VOTE_COLUMNS} FROM votes WHERE proposal_id IN (SELECT value FROM json_each(?)) ORDER BY proposal_id, at, person`),
    };
  }

  async list(proposalId: string): Promise<VoteRecord[]> {
    return (this.stmts.list.all(proposalId) as Array<Record<string, unknown>>).map(toVote);
  }

  async listMany(proposalIds: readonly string[]): Promise<Map<string, VoteRecord[]>> {
    if (proposalIds.length === 0) return new Map();
    return groupBy((this.stmts.listMany.all(JSON.stringify(proposalIds)) as Array<Record<string, unknown>>).map(toVote), (v) => v.proposal_id);
  }

  async add(vote: VoteRecord): Promise<boolean> {
    return this.stmts.add.run(...voteValues(vote)).changes > 0;
  }

  async clear(proposalId: string): Promise<number> {
    return this.stmts.clear.run(proposalId).changes;
  }
}
