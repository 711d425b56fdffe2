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

/** "2026-11-21 14:03:07 UTC"-style absolute time in the viewer's zone (for titles and the audit trail). */
export function dateTime(iso: string, locale?: string): string {
  return new Date(iso).toLocaleString(locale, { dateStyle: 'medium', timeStyle: 'medium' });
}

/** `confidence` reads as a percentage; null is what a build without an LLM sends. */
export function confidenceText(confidence: number | null): string {
  return confidence === null ? 'not rated (no LLM)' : `${Math.round(confidence * 100)}%`;
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
