/**
 * Why an open request waits, in one or two words for a list (`expertq requests`, the web Requests
 * table); null when someone is asked and working on it, or the answer waits for review.
 */
export function waitWords(waiting: { why: string } | null | undefined): string | null {
  if (!waiting || waiting.why === 'review') return null;
  return WORDS[waiting.why] ?? waiting.why.replace(/_/g, ' ');
}

const WORDS: Readonly<Record<string, string>> = {
  llm: 'drafting',
  quiet_hours: 'quiet hours',
  working_hours: 'off hours',
  away: 'expert away',
  dnd: 'do not disturb',
  cap: 'held',
};
