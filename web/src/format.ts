/** "just now", "5 min ago", "3 h ago", "2 days ago" from an ISO time. */
export function timeAgo(iso: string, now: number): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (seconds < 45) return 'just now';
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.round(hours / 24);
  return days === 1 ? '1 day ago' : `${days} days ago`;
}

/**
 * An absolute time in the viewer's zone, with the zone named ("Nov 21, 2026, 2:03:07 PM UTC"), so a
 * time read aloud or pasted into a ticket is never ambiguous.
 */
export function dateTime(iso: string, locale?: string, timeZone?: string): string {
  return new Date(iso).toLocaleString(locale, { dateStyle: 'medium', timeStyle: 'long', ...(timeZone ? { timeZone } : {}) });
}

/**
 * `confidence` reads as a percentage. Null is what a build without an LLM sends, or, with one
 * (`provenance.llm`), a proposal whose structuring fell back to the verbatim answer.
 */
export function confidenceText(confidence: number | null, llm?: { structured: boolean }): string {
  if (confidence !== null) return `${Math.round(confidence * 100)}%`;
  return llm ? 'not rated (structuring fell back)' : 'not rated (no LLM)';
}

/** The drafted question to show beside the raw one: only when an LLM drafted a different one. */
export function draftedQuestion(request: { question: string; asked_question: string | null }): string | null {
  return request.asked_question !== null && request.asked_question !== request.question ? request.asked_question : null;
}

/** True when `structured` only repeats the answer (`{"text": answer}`, what a build without an LLM sends). */
export function structuredIsVerbatim(structured: unknown, answer: string): boolean {
  if (typeof structured !== 'object' || structured === null || Array.isArray(structured)) return false;
  const keys = Object.keys(structured);
  return keys.length === 1 && keys[0] === 'text' && (structured as { text: unknown }).text === answer;
}

/** `structured` for display: pretty JSON, stable and readable. */
export function structuredText(structured: unknown): string {
  return structured === undefined ? 'null' : JSON.stringify(structured, null, 2);
}

/** `delivery_failed` → "Delivery failed". */
export function humanize(type: string): string {
  const words = type.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}
