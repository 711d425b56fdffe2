import EmailReplyParser from 'email-reply-parser';
import { simpleParser, type ParsedMail } from 'mailparser';
import { cutOutlookQuote } from './cut-outlook-quote.js';

/**
 * The expert's new text in a reply: the quoted original and the signature cut by email-reply-parser,
 * then what it misses of Outlook's quotes (see cutOutlookQuote), trimmed. HTML-only replies are read
 * as text first (blockquotes become `>` lines, which the reply parser then cuts).
 */
export async function replyText(mail: ParsedMail): Promise<string> {
  const text = (await plainText(mail)).replace(/\r\n?/g, '\n');
  return cutOutlookQuote(new EmailReplyParser().read(text).getVisibleText()).trim();
}

/**
 * The message as plain text. mailparser converts HTML to text itself when the HTML part is the whole
 * message, but not when it sits inside a multipart (an HTML-only reply with an attachment): then
 * `text` is empty and the HTML is parsed again as a message of its own, so the conversion is
 * mailparser's (html-to-text) without depending on that library directly.
 */
async function plainText(mail: ParsedMail): Promise<string> {
  if ((mail.text ?? '').trim() !== '' || !mail.html) return mail.text ?? '';
  const alone = Buffer.concat([Buffer.from('Content-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n'), Buffer.from(mail.html)]);
  return (await simpleParser(alone, { skipTextToHtml: true, skipImageLinks: true })).text ?? '';
}

export type MailCommand = 'mute' | 'skip' | 'unmute' | 'same';

const COMMANDS: ReadonlySet<string> = new Set<MailCommand>(['mute', 'skip', 'unmute', 'same']);

/**
 * The command a reply's visible text is, when it is only one of the words `mute`, `skip`, `unmute` or
 * `same` (any case, with punctuation or white space around it, e.g. "Skip." or "*mute*"); null otherwise,
 * so an answer that merely contains one of the words stays an answer.
 */
export function mailCommand(text: string): MailCommand | null {
  const word = text.replace(/^[\s\p{P}\p{S}]+|[\s\p{P}\p{S}]+$/gu, '').toLowerCase();
  return COMMANDS.has(word) ? (word as MailCommand) : null;
}
