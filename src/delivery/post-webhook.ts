import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import ipaddr from 'ipaddr.js';
import { isPublicAddress, publicOnlyLookup } from './address-guard.js';

export interface PostResult {
  status: number;
  /** Seconds or an HTTP date, as sent with 429/503. */
  retryAfter: string | undefined;
}

/** Per-attempt timeout. */
export const WEBHOOK_TIMEOUT_MS = 15_000;

/**
 * POSTs one webhook. Redirects are not followed (a 3xx is a failure), the whole attempt is bounded by
 * the timeout, and unless private targets are allowed the connection is refused after DNS resolution
 * if the address is not public. Rejects on network errors and timeouts.
 */
export function postWebhook(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: { allowPrivate: boolean; timeoutMs?: number },
): Promise<PostResult> {
  const target = new URL(url);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  // An IP-literal host is never looked up, so the lookup's check would not run: check it here.
  const literal = target.hostname.replace(/^\[|\]$/g, '');
  if (!options.allowPrivate && ipaddr.isValid(literal) && !isPublicAddress(literal)) {
    return Promise.reject(Object.assign(new Error(`webhook address ${literal} is not a public address`), { code: 'EADDRNOTPUBLIC' }));
  }
  return new Promise((resolve, reject) => {
    const req = send(
      target,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': 'expertq-webhooks/1', ...headers },
        signal: AbortSignal.timeout(options.timeoutMs ?? WEBHOOK_TIMEOUT_MS),
        ...(options.allowPrivate ? {} : { lookup: publicOnlyLookup }),
      },
      (res) => {
        res.resume(); // the body is not used; drain it so the socket is freed
        res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: headerValue(res.headers['retry-after']) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const headerValue = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
