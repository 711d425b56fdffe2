import { previousAnswerLine, type PreviousAnswer } from './previous-answer.js';

/** What an outbound ask is made of. The question is already drafted (or raw, without an LLM). */
export interface AskParts {
  orgName: string;
  expertName: string;
  consumerId: string;
  askedBecause: string;
  question: string;
  /** A reviewer sent the expert's earlier answer back with these instructions. */
  sentBack?: { instructions: string; previousAnswer: string | null } | undefined;
  /** A stale library entry asked the same question: its answer is shown, and `same` confirms it. */
  previous?: PreviousAnswer | undefined;
  /** Where experts read how expertq treats their time (`org.expert_guide_url`); linked after the opt-out. */
  guideUrl?: string | undefined;
}

/** First name for the greeting; the full name is used in the attribution promise. */
function greetingName(name: string): string {
  return name.trim().split(/\s+/)[0] ?? name;
}

/**
 * The six elements of every ask, in their fixed order: self-identification, why it asks, one
 * question, effort framing, attribution promise, opt-out. Every path that sends an ask (first ask,
 * escalation, held, quiet hours, targets, with or without LLM) goes through here, so none can skip one.
 */
export function composeAsk(parts: AskParts): string {
  return askElements(parts).join('\n');
}

/**
 * The six elements of an ask, one string each, in the fixed order (chat transports show one block
 * each). An ask sent back by a reviewer has the reviewer's instructions right after the question, and
 * an ask on a question a stale library entry answered has that answer there; the six stay in their
 * order around them.
 */
export function askElements(parts: AskParts): string[] {
  const back = parts.sentBack;
  return [
    `Hi ${greetingName(parts.expertName)}, I'm an automated assistant for ${parts.orgName} (not a person).`,
    `The ${parts.consumerId} service is asking because: ${parts.askedBecause.trim()}`,
    `Question: ${parts.question.trim()}`,
    ...(back
      ? [`A reviewer sent your answer back${back.previousAnswer ? ` ("${back.previousAnswer.trim()}")` : ''} and asks: ${back.instructions.trim()}`]
      : []),
    ...(parts.previous ? [previousAnswerLine(parts.previous)] : []),
    'A one- or two-sentence reply is all that is needed.',
    `Your answer will be recorded with your name (${parts.expertName}) as the source, after human review.`,
    `Reply \`mute\` to stop receiving questions, or \`skip\` to pass this one along.${parts.guideUrl ? ` How expertq treats your time: ${parts.guideUrl}` : ''}`,
  ];
}

/** The note sent to an expert when a reviewer accepts their answer. */
export function composeAcceptedNotice(parts: { orgName: string; expertName: string; question: string; edited?: boolean }): string {
  const edited = parts.edited ? ' (a reviewer edited the wording before accepting it)' : '';
  return [
    `Hi ${greetingName(parts.expertName)}, this is the automated assistant for ${parts.orgName} again.`,
    `Your answer to "${parts.question.trim()}" was accepted after human review${edited} and is recorded with your name (${parts.expertName}) as the source. Thank you!`,
  ].join('\n');
}
