/** What became of a library entry offered instead of asking an expert (the `outcome` of `expertq_reuse_total`). */
export const REUSE_OUTCOMES = ['offered', 'accepted', 'returned', 'rejected'] as const;
export type ReuseOutcome = (typeof REUSE_OUTCOMES)[number];
