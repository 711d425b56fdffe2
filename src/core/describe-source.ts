/** What a proposal's provenance says about the library, as far as a one-line summary needs. */
export interface SourceFacts {
  reused_from?: string | undefined;
  verified_at?: string | undefined;
  original_question?: string | undefined;
  refreshes?: string | undefined;
}

/**
 * One line for a reviewer when a proposal's answer is not a new one: reused from the library (its
 * score and when it was last verified, a UTC day), or an expert's `same` confirming a library entry.
 * Null for an ordinary answer. The Slack review card and the CLI queue show it.
 */
export function librarySourceLine(provenance: SourceFacts, confidence: number | null): string | null {
  if (provenance.reused_from !== undefined) {
    const facts = [
      ...(confidence !== null ? [`score ${confidence.toFixed(2)}`] : []),
      ...(provenance.verified_at ? [`verified ${provenance.verified_at.slice(0, 10)}`] : []),
    ];
    return `Reused from the library${facts.length ? ` (${facts.join(', ')})` : ''}: no expert was asked.`;
  }
  if (provenance.refreshes !== undefined) {
    return `Confirms library answer ${provenance.refreshes}: the expert replied "same"; accepting marks it verified again.`;
  }
  return null;
}
