import { createHmac, timingSafeEqual } from 'node:crypto';

/** Slack's allowed clock skew for signed requests, in both directions. */
export const SLACK_SIGNATURE_WINDOW_MS = 5 * 60_000;

/**
 * Checks `X-Slack-Signature` (`v0=` + hex HMAC-SHA256 of `v0:<timestamp>:<raw body>` with the
 * signing secret) and that `X-Slack-Request-Timestamp` is within five minutes of now in either
 * direction. Written here rather than taken from Bolt because Bolt's verifier accepts timestamps in
 * the future, which would let a captured request be replayed later. Returns why it failed,
 * or null when the request is Slack's.
 */
export function verifySlackRequest(
  secret: string,
  headers: { signature?: string | undefined; timestamp?: string | undefined },
  rawBody: Buffer,
  now: number,
): string | null {
  const { signature, timestamp } = headers;
  if (!signature || !timestamp) return 'the X-Slack-Signature or X-Slack-Request-Timestamp header is missing';
  const seconds = Number(timestamp);
  if (!/^\d{1,12}$/.test(timestamp) || Math.abs(now - seconds * 1000) > SLACK_SIGNATURE_WINDOW_MS) {
    return 'the request timestamp is more than five minutes from now';
  }
  const expected = `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:`).update(rawBody).digest('hex')}`;
  const a = Buffer.from(expected);
  const b = Buffer.from(signature);
  return a.length === b.length && timingSafeEqual(a, b) ? null : 'the signature does not match';
}
