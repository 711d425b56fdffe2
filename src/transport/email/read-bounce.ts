import type { Attachment, ParsedMail } from 'mailparser';
import { headerBlocks, headerValue, messageIds } from './mail-headers.js';

/** What a delivery status notification says about the message it returns. */
export interface BounceFacts {
  /** The returned message's `Message-ID` (angle brackets kept), when the report carries it back. */
  originalMessageId: string | null;
  /** The recipient that failed, bare and lower-cased. */
  recipient: string | null;
  /** The RFC 3463 status code, e.g. `5.1.1`. */
  status: string | null;
  /** A `failed` action or a 5.x.x status: retrying will not help. `delayed` is not permanent. */
  permanent: boolean;
}

const STATUS_TYPES = new Set(['message/delivery-status', 'message/global-delivery-status']);
const RETURNED_TYPES = new Set(['message/rfc822', 'message/global', 'text/rfc822-headers', 'message/global-headers']);

/**
 * Whether the message is a delivery status notification (RFC 3464): `multipart/report` with
 * `report-type=delivery-status`. Mail servers send these for bounces and delays; they often carry
 * `Auto-Submitted: auto-replied` too, so this is asked before any other automatic-mail check.
 */
export function isDeliveryReport(mail: ParsedMail): boolean {
  const type = headerValue(mail.headerLines, 'content-type') ?? '';
  return /^\s*multipart\/report\s*;/i.test(type) && /;\s*report-type\s*=\s*"?delivery-status"?\s*(;|$)/i.test(type);
}

/**
 * Reads the report's parts. mailparser must be run with `keepDeliveryStatus: true`, so the status part
 * arrives as an attachment rather than being folded into the text; the returned original (whole, or its
 * headers only) is an attachment either way. The first recipient block is read: an ask goes to one
 * expert, so its bounce names one recipient (the per-message block before it names none).
 */
export function readBounce(mail: ParsedMail): BounceFacts {
  const status = mail.attachments.find((a) => STATUS_TYPES.has(a.contentType.toLowerCase()));
  const returned = mail.attachments.find((a) => RETURNED_TYPES.has(a.contentType.toLowerCase()));
  const recipientBlock = status ? headerBlocks(text(status)).find((b) => b.has('action') || b.has('final-recipient')) : undefined;
  const action = recipientBlock?.get('action')?.toLowerCase() ?? null;
  const code = /\d\.\d{1,3}\.\d{1,3}/.exec(recipientBlock?.get('status') ?? '')?.[0] ?? null;
  const finalRecipient = recipientBlock?.get('final-recipient') ?? recipientBlock?.get('original-recipient') ?? null;
  const originalHeaders = returned ? headerBlocks(text(returned), true)[0] : undefined;
  return {
    originalMessageId: messageIds(originalHeaders?.get('message-id') ?? '')[0] ?? null,
    recipient: finalRecipient ? bareRecipient(finalRecipient) : null,
    status: code,
    permanent: action === 'failed' || (action !== 'delayed' && code?.startsWith('5.') === true),
  };
}

/** `rfc822; Ada@Example.org` → `ada@example.org` (the address type is dropped, brackets too). */
function bareRecipient(value: string): string {
  const address = value.includes(';') ? value.slice(value.indexOf(';') + 1) : value;
  return address.trim().replace(/^<|>$/g, '').toLowerCase();
}

function text(part: Attachment): string {
  return part.content.toString('utf8');
}
