/** A `Host` header value split into its lower-case name and its port (null when none was sent). */
export interface HostAndPort {
  name: string;
  port: string | null;
}

const BRACKETED = /^(\[[0-9a-f:.]+\])(?::(\d{1,5}))?$/;
const PLAIN = /^([^:/\\\s@?#[\]]+)(?::(\d{1,5}))?$/;

/** Splits a `Host` header (`name`, `name:port`, `[v6]:port`); null for anything else. */
export function splitHost(value: string): HostAndPort | null {
  const match = BRACKETED.exec(value.trim().toLowerCase()) ?? PLAIN.exec(value.trim().toLowerCase());
  if (!match) return null;
  return { name: match[1]!, port: match[2] ?? null };
}

/**
 * A `server.allowed_hosts` entry: a host name or IP address as clients send it in `Host`, optionally
 * with a port. Checked by the URL parser, so "https://…", paths and wildcards are refused at start-up.
 */
export function parseHostEntry(entry: string): HostAndPort | null {
  const host = splitHost(entry);
  // Letters, digits, dots and hyphens (IDNs in their xn-- form), or a bracketed IPv6 address.
  if (!host || !/^([a-z0-9.-]+|\[[0-9a-f:.]+\])$/.test(host.name)) return null;
  try {
    return new URL(`http://${host.name}`).hostname === host.name ? host : null;
  } catch {
    return null;
  }
}

export const HOST_ENTRY_PROBLEM =
  'must be a host name or IP address as clients send it in the Host header, optionally with a port (expertq.example.com, expertq.example.com:8443, 10.0.0.5, [fd00::5]:8776); no scheme, path or wildcard';
