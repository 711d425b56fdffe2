import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/load-config.js';
import { namedRules } from '../../../src/config/review-rules-schema.js';
import { composeService } from '../../../src/compose-service.js';
import type { ExpertqService } from '../../../src/service/expertq-service.js';
import { openPgStore, type PgStore } from '../../../src/store/postgres/pg-store.js';
import type { Transport } from '../../../src/transport/transport.js';
import { FakeClock } from '../../support/fake-clock.js';
import { createTestDatabase, dropTestDatabase } from '../engines.js';

const quiet: Transport = { name: 'console', threaded: false, send: async () => {}, start: async () => {}, stop: async () => {} };

const YAML = `
org: { name: Acme }
experts:
  - { id: dana, name: Dana, topics: [billing] }
review:
  rules:
    - { name: two-person, match: { topics: [billing] }, reviewers: [alice, bob, carol], approvals: 2 }
`;

const database = `eq_votes_${process.pid}`;
const stores: PgStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  await dropTestDatabase(database);
});

/** Two instances on one fresh PostgreSQL database, each with its own pool, under a two-approval rule for billing. */
async function twoInstances(): Promise<[ExpertqService, ExpertqService]> {
  const url = await createTestDatabase(database);
  const config = { ...parseConfig(YAML, '/etc/expertq/service.yaml'), file: null };
  const clock = new FakeClock();
  const make = async () => {
    const store = await openPgStore({ url, poolSize: 4 });
    stores.push(store);
    return composeService({ config, store, transport: quiet, log: pino({ level: 'silent' }), clock, review: { rules: namedRules(config.review.rules) } });
  };
  return [await make(), await make()];
}

async function pendingProposal(service: ExpertqService): Promise<{ requestId: string; proposalId: string }> {
  const { request_id: requestId } = await service.submitRequest({ consumer_id: 'bot', topic: 'billing', question: 'What is the grace period?', context: { asked_because: 'test' } });
  const reply = await service.receiveReply({ expert_id: 'dana', text: 'Thirty days.', request_id: requestId });
  return { requestId, proposalId: reply.proposal_id! };
}

async function whatHappened(service: ExpertqService, requestId: string, proposalId: string) {
  const audit = await service.store.requests.audit(requestId);
  return {
    status: (await service.store.proposals.get(proposalId))!.status,
    votes: (await service.store.votes.list(proposalId)).map((v) => v.by).sort(),
    decided: audit.filter((e) => e.type === 'decided').length,
    quorum: audit.filter((e) => e.type === 'quorum_met').length,
    accepted: (await service.store.outbox.events(requestId)).filter((e) => e.type === 'proposal_accepted').length,
  };
}

describe('votes on two instances of one PostgreSQL database', () => {
  it('three reviewers voting at once on two instances: two votes count, one decision, one proposal_accepted', async () => {
    const [a, b] = await twoInstances();
    const { requestId, proposalId } = await pendingProposal(a);
    const answers = await Promise.all([
      a.decideOrVote(proposalId, 'accepted', { decided_by: 'alice' }),
      b.decideOrVote(proposalId, 'accepted', { decided_by: 'bob' }),
      b.decideOrVote(proposalId, 'accepted', { decided_by: 'carol' }),
    ]);
    expect(answers.map((x) => x.message).filter((m) => m.startsWith('Accepted'))).toHaveLength(1);
    const seen = await whatHappened(b, requestId, proposalId);
    expect(seen).toMatchObject({ status: 'accepted', decided: 1, quorum: 1, accepted: 1 });
    expect(seen.votes).toHaveLength(2);
  });

  it('the same person voting on both instances at once is counted once', async () => {
    const [a, b] = await twoInstances();
    const { requestId, proposalId } = await pendingProposal(a);
    await Promise.all([a.decideOrVote(proposalId, 'accepted', { decided_by: 'alice' }), b.decideOrVote(proposalId, 'accepted', { decided_by: 'Alice' })]);
    const seen = await whatHappened(a, requestId, proposalId);
    // Whichever instance came first recorded the vote (as "alice" or "Alice"); the other changed nothing.
    expect({ ...seen, votes: seen.votes.map((v) => v.toLowerCase()) }).toEqual({ status: 'pending', votes: ['alice'], decided: 0, quorum: 0, accepted: 0 });
    await b.decideOrVote(proposalId, 'accepted', { decided_by: 'bob' });
    expect(await whatHappened(a, requestId, proposalId)).toMatchObject({ status: 'accepted', decided: 1, accepted: 1 });
  });
});
