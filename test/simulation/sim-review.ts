import type { Store } from '../../src/store/store.js';

/** Security answers need two of three reviewers; one rejection rejects. */
export const SIM_REVIEWERS = ['rev-a@sim.example', 'rev-b@sim.example', 'rev-c@sim.example'] as const;
export const SIM_REVIEW = {
  rules: [{ name: 'two-person security', match: { topics: ['security'] }, reviewers: [...SIM_REVIEWERS], approvals: 2 }],
};

/** One of the three reviewers, at random: votes by the same one twice must change nothing. */
export const simReviewer = (rand: () => number): string => SIM_REVIEWERS[Math.floor(rand() * SIM_REVIEWERS.length)]!;

type Row = { type: string; data: Record<string, unknown> };

/**
 * The review rule's promises, read from each decided request's audit: a proposal is decided once; an
 * accepted security proposal had two different reviewers' accepts (`quorum_met` naming them); one
 * accept alone never delivered it. Returns the violations and how many two-person accepts it checked.
 */
export async function checkVotes(store: Store, requestIds: readonly string[]): Promise<{ violations: string[]; quorums: number; votes: number }> {
  const violations: string[] = [];
  let quorums = 0;
  let votes = 0;
  for (const id of requestIds) {
    const request = await store.requests.get(id);
    if (!request) continue;
    const rows = (await store.requests.audit(id)) as Row[];
    const decided = new Map<string, number>();
    for (const row of rows) {
      if (row.type === 'vote') votes++;
      if (row.type !== 'decided') continue;
      const proposal = String(row.data.proposal_id);
      decided.set(proposal, (decided.get(proposal) ?? 0) + 1);
      if (decided.get(proposal)! > 1) violations.push(`proposal ${proposal} decided twice`);
      if (request.topic !== 'security' || row.data.status !== 'accepted') continue;
      const quorum = rows.find((r) => r.type === 'quorum_met' && r.data.proposal_id === proposal);
      const by = new Set((quorum?.data.accepted_by as string[] | undefined) ?? []);
      if (by.size < 2) violations.push(`security proposal ${proposal} accepted with ${by.size} reviewer(s): ${[...by].join(", ")}`);
      else quorums++;
    }
  }
  return { violations, quorums, votes };
}
