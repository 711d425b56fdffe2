/** Lowercase, trim, and collapse whitespace runs to one space. */
export function normalizeTopic(topic: string): string {
  return topic.toLowerCase().trim().replace(/\s+/g, ' ');
}

/** Topic tokens for fuzzy matching: split on any run of non-letters/digits (Unicode-aware). */
export function topicTokens(topic: string): Set<string> {
  return new Set(normalizeTopic(topic).split(/[^\p{L}\p{N}]+/u).filter((t) => t.length > 0));
}

/** Jaccard similarity |A∩B| / |A∪B| of two token sets; 0 when both are empty. */
export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 0;
  let common = 0;
  for (const token of a) if (b.has(token)) common++;
  return common / (a.size + b.size - common);
}
