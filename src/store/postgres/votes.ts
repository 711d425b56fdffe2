import { groupBy } from '../row-records.js';
import type { VoteRecord, VoteRepository } from '../vote-repository.js';
import { pgStatements } from '../shared/placeholders.js';
import { toVote, VOTE_COLUMNS, VOTES, voteValues } from '../shared/votes-sql.js';
import { all, run, type Db } from './sql.js';

const SQL = pgStatements(VOTES);

/**
 * Review votes in PostgreSQL, shared by every instance. Votes on one proposal are cast in
 * transactions that first lock the proposal's row, so two instances counting votes take turns.
 */
export class PgVotes implements VoteRepository {
  constructor(private readonly db: Db) {}

  async list(proposalId: string): Promise<VoteRecord[]> {
    return (await all(this.db, SQL.list, [proposalId])).map(toVote);
  }

  async listMany(proposalIds: readonly string[]): Promise<Map<string, VoteRecord[]>> {
    if (proposalIds.length === 0) return new Map();
    const rows = await all(this.db, `SELECT ${VOTE_COLUMNS} FROM votes WHERE proposal_id = ANY($1::text[]) ORDER BY proposal_id, at, person`, [proposalIds]);
    return groupBy(rows.map(toVote), (v) => v.proposal_id);
  }

  async add(vote: VoteRecord): Promise<boolean> {
    return (await run(this.db, SQL.add, voteValues(vote))) > 0;
  }

  async clear(proposalId: string): Promise<number> {
    return run(this.db, SQL.clear, [proposalId]);
  }
}
