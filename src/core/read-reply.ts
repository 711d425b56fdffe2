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
