import { lookup as dnsLookup } from 'node:dns';
import { promises as dns } from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Webhook URLs must not reach into the network expertq runs in (SSRF): loopback, private, link-local,
 * carrier-grade NAT, unique-local, cloud metadata and every other special-purpose range are refused,
 * IPv4-mapped IPv6 included. Only global unicast addresses pass.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    // IPv4-compatible (::a.b.c.d, deprecated) embeds an IPv4 address in the low 32 bits: judge that one.
    if (v6.parts.slice(0, 6).every((p) => p === 0)) {
      const [hi, lo] = [v6.parts[6]!, v6.parts[7]!];
      return isPublicAddress(`${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`);
    }
    // Translation and tunnel prefixes (NAT64, 6to4, Teredo, SIIT) can reach any IPv4 address: refused.
    if (['rfc6052', 'rfc6145', '6to4', 'teredo'].includes(v6.range())) return false;
  }
  return parsed.range() === 'unicast';
}

/** Checks a URL at registration: scheme, and every address its host resolves to. Returns a problem or null. */
export async function checkWebhookUrl(url: string, allowPrivate: boolean): Promise<string | null> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'is not a valid URL';
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return 'must be an http or https URL';
  if (parsed.username || parsed.password) return 'must not contain credentials';
  if (allowPrivate) return null;
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (ipaddr.isValid(host)) {
    addresses = [host];
  } else {
    try {
      addresses = (await dns.lookup(host, { all: true })).map((a) => a.address);
    } catch {
      return `host "${host}" does not resolve`;
    }
  }
  const blocked = addresses.find((a) => !isPublicAddress(a));
  return blocked
    ? `resolves to ${blocked}, a private, loopback or link-local address (set server.allow_private_webhooks: true to allow it)`
    : null;
}

/**
 * A `lookup` for http.request that refuses non-public addresses after DNS resolution, at connect time,
 * so a name that resolved to a public address at registration cannot be re-pointed inside (DNS rebinding).
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '', 0);
    const list = addresses as unknown as Array<{ address: string; family: number }>;
    const blocked = list.find((a) => !isPublicAddress(a.address));
    if (blocked) {
      const refused = Object.assign(new Error(`webhook host ${hostname} resolves to non-public address ${blocked.address}`), { code: 'EADDRNOTPUBLIC' });
      return callback(refused, '', 0);
    }
    if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: typeof list) => void)(null, list);
    callback(null, list[0]!.address, list[0]!.family);
  });
};
