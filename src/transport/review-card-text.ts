import type { ReviewCard } from './transport.js';

/** `text` cut to `max` characters, ending with `…` when cut. */
export const clip = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** One line that says what became of a decided proposal (every review channel shows it the same way). */
export function decisionLine(card: ReviewCard): string | null {
  const d = card.decision;
  if (!d) return null;
  const at = d.at.replace('T', ' ').replace(/:\d\d\.\d{3}Z$/, ' UTC');
  const detail = d.detail ? `: ${d.detail}` : '';
  switch (d.outcome) {
    case 'accepted':
      return `Accepted by ${d.by} at ${at}${detail}`;
    case 'rejected':
      return `Rejected by ${d.by} at ${at}${detail}`;
    case 'returned':
      return `Sent back to ${card.expertName} by ${d.by} at ${at}${detail}`;
    case 'withdrawn':
      return `Withdrawn at ${at}${detail}`;
  }
}
