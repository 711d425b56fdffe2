import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Signed tokens the email channel hands out: the token in an ask's reply address, and the values of
 * links in mail (one-click unsubscribe, review). Each is an HMAC-SHA256 under the channel's secret,
 * with a domain prefix per kind so a token of one kind never verifies as another.
 */

/** Crockford base32 in lower case: the ULID alphabet, and only letters and digits. */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const ULID = '[0-9a-hjkmnp-tv-z]{26}';
/** 16 base32 characters: 80 bits of the HMAC, enough that guessing a reply address is hopeless. */
const MAC_CHARS = 16;
const ASK_ID = new RegExp(`^ask_(${ULID})$`, 'i');
const REPLY_TOKEN = new RegExp(`^(${ULID})([${ALPHABET}]{${MAC_CHARS}})$`);

function base32(bytes: Buffer, chars: number): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5 && out.length < chars) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  return out;
}

function replyMac(secret: string, askId: string, expertId: string): string {
  const mac = createHmac('sha256', secret).update(`expertq-reply\0${askId}\0${expertId}`).digest();
  return base32(mac, MAC_CHARS);
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The token of an ask's reply address (`expertq+<token>@…`): the ask's ULID and an HMAC over the ask
 * and the expert it was sent to, in lower-case letters and digits only, because some mail systems
 * lower-case the addresses they pass on. 42 characters, so the local part stays under 64.
 * Throws on an id that is not an ask id (a programming error, not bad input).
 */
export function replyToken(secret: string, askId: string, expertId: string): string {
  const ulid = ASK_ID.exec(askId)?.[1];
  if (!ulid) throw new Error(`not an ask id: ${askId}`);
  return ulid.toLowerCase() + replyMac(secret, `ask_${ulid.toUpperCase()}`, expertId);
}

/** A reply token as read back from an address: which ask it names, and whether it was ours for an expert. */
export interface ReplyToken {
  /** The ask id, in its canonical upper-case form. */
  askId: string;
  /** True when the token was made under `secret` for this ask and `expertId`. */
  verify(secret: string, expertId: string): boolean;
}

/** Reads a reply token in any letter case; null when it is not one (verify it before trusting the ask id). */
export function readReplyToken(token: string): ReplyToken | null {
  const match = REPLY_TOKEN.exec(token.trim().toLowerCase());
  if (!match) return null;
  const askId = `ask_${match[1]!.toUpperCase()}`;
  const mac = match[2]!;
  return { askId, verify: (secret, expertId) => sameText(mac, replyMac(secret, askId, expertId)) };
}

/** The reply address of an ask: `<localPart>+<token>@<domain>` (sub-addressing). */
export function replyAddress(localPart: string, token: string, domain: string): string {
  return `${localPart}+${token}@${domain}`;
}

/** The token in a reply address (`local+token@domain`, any case), or null when the address carries none. */
export function tokenOfAddress(address: string): string | null {
  const local = address.trim().replace(/^.*</, '').replace(/>.*$/, '').split('@')[0] ?? '';
  const plus = local.lastIndexOf('+');
  return plus < 0 ? null : local.slice(plus + 1) || null;
}

/** What a signed link carried, once its signature and expiry were checked. */
export interface SignedLink {
  payload: string;
  /** Ms since the epoch; null when the link does not expire. */
  expiresAt: number | null;
}

function linkMac(secret: string, purpose: string, body: string): string {
  return createHmac('sha256', secret).update(`expertq-link\0${purpose}\0${body}`).digest('base64url');
}

/**
 * A value for a link in mail (`?t=…`), base64url with a signature: `purpose` says what the link is
 * for (`unsubscribe`, `review`…), so a value made for one purpose is refused for another.
 * `expiresAt` is ms since the epoch; without it the link works until the secret changes.
 */
export function signedLink(secret: string, purpose: string, payload: string, expiresAt?: number): string {
  const body = Buffer.from(JSON.stringify(expiresAt === undefined ? { p: payload } : { p: payload, e: expiresAt })).toString('base64url');
  return `${body}.${linkMac(secret, purpose, body)}`;
}

/** Reads a link value; null when it is malformed, tampered with, made for another purpose, or expired at `now`. */
export function readSignedLink(secret: string, purpose: string, value: string, now: number): SignedLink | null {
  const [body, mac, ...rest] = value.split('.');
  if (!body || !mac || rest.length > 0 || !sameText(mac, linkMac(secret, purpose, body))) return null;
  let data: unknown;
  try {
    data = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (typeof data !== 'object' || data === null) return null;
  const { p, e } = data as { p?: unknown; e?: unknown };
  if (typeof p !== 'string' || (e !== undefined && typeof e !== 'number')) return null;
  if (e !== undefined && now >= e) return null;
  return { payload: p, expiresAt: e ?? null };
}
