/**
 * Why an open request waits, in one or two words for a list (`expertq requests`, the web Requests
 * table); null when someone is asked and working on it, or the answer waits for review.
 */
export function waitWords(waiting: { why: string } | null | undefined): string | null {
  if (!waiting || waiting.why === 'review') return null;
  return WORDS[waiting.why] ?? waiting.why.replace(/_/g, ' ');
}

const WORDS: Readonly<Record<string, string>> = {
  llm: 'preparing',
  quiet_hours: 'quiet hours',
  working_hours: 'off hours',
  away: 'expert away',
  dnd: 'do not disturb',
  cap: 'held',
};

/** What a proposal reveals of where its answer came from: reused from the library, or an expert's reply. */
export interface AnswerSource {
  provenance: { expert_name: string; reused_from?: string | undefined };
}

/**
 * Who answered a request that waits for review, to go inside a sentence: "Dana Smith answered", or,
 * for an answer reused from the library, that nobody was asked; "an expert answered" when the
 * proposal is not at hand. `sentence` starts it with a capital.
 */
export function answeredWords(proposal: AnswerSource | null | undefined, { sentence = false } = {}): string {
  const words = answered(proposal);
  return sentence ? capitalized(words) : words;
}

function answered(proposal: AnswerSource | null | undefined): string {
  if (!proposal) return 'an expert answered';
  const { expert_name, reused_from } = proposal.provenance;
  if (reused_from !== undefined) return `the library has an earlier answer from ${expert_name} (no expert was asked)`;
  return `${expert_name} answered`;
}

/** Why a request waits while a model works on it (drafting the question, or checking earlier answers), to go inside a sentence. */
export const PREPARING = 'preparing the question for the expert, or checking it against earlier answers; nobody is asked yet';

/** `text` with a capital first letter, to start a sentence. */
export const capitalized = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);
