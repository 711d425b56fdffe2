export type ReplyKind = 'mute' | 'skip' | 'unmute' | 'answer';

/**
 * What an expert's message means. Commands are the whole message, trimmed and case-insensitive
 * (`Skip`, ` MUTE `, `skip.` is not one); anything else is an answer, kept verbatim.
 */
export function readReply(text: string): ReplyKind {
  const command = text.trim().toLowerCase();
  if (command === 'mute' || command === 'skip' || command === 'unmute') return command;
  return 'answer';
}

/**
 * Whether an answer confirms the previous answer an ask showed: `same`, in any case, with spaces and
 * punctuation around it (`Same.`, ` same! `). Only an ask that showed one gives it that meaning;
 * elsewhere it is an answer like any other.
 */
export function isSameReply(text: string): boolean {
  return text.trim().toLowerCase().replace(/^[\p{P}\s]+|[\p{P}\s]+$/gu, '') === 'same';
}
