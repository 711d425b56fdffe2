/** What an outbound ask is made of. The question is already drafted (or raw, without an LLM). */
export interface AskParts {
  orgName: string;
  expertName: string;
  consumerId: string;
  askedBecause: string;
  question: string;
}

/** First name for the greeting; the full name is used in the attribution promise. */
function greetingName(name: string): string {
  return name.trim().split(/\s+/)[0] ?? name;
}

/**
 * The six elements of every ask, in the seed's fixed order: self-identification, why it asks, one
 * question, effort framing, attribution promise, opt-out. Every path that sends an ask (first ask,
 * escalation, held, quiet hours, targets, with or without LLM) goes through here, so none can skip one.
 */
export function composeAsk(parts: AskParts): string {
  return askElements(parts).join('\n');
}

/** The six elements of an ask, one string each, in the fixed order (chat transports show one block each). */
export function askElements(parts: AskParts): string[] {
  return [
    `Hi ${greetingName(parts.expertName)}, I'm an automated assistant for ${parts.orgName} (not a person).`,
    `The ${parts.consumerId} service is asking because: ${parts.askedBecause.trim()}`,
    `Question: ${parts.question.trim()}`,
    'A one- or two-sentence reply is all that is needed.',
    `Your answer will be recorded with your name (${parts.expertName}) as the source, after human review.`,
    'Reply `mute` to stop receiving questions, or `skip` to pass this one along.',
  ];
}

/** The note sent to an expert when a reviewer accepts their answer (seed: Expert notifications). */
export function composeAcceptedNotice(parts: { orgName: string; expertName: string; question: string }): string {
  return [
    `Hi ${greetingName(parts.expertName)}, this is the automated assistant for ${parts.orgName} again.`,
    `Your answer to "${parts.question.trim()}" was accepted after human review and is recorded with your name (${parts.expertName}) as the source. Thank you!`,
  ].join('\n');
}
