/** Where and as whom to read mail, from an `imap://` or `imaps://` URL (credentials inside). */
export interface ImapEndpoint {
  host: string;
  port: number;
  /** TLS from the first byte (`imaps://`); `imap://` upgrades with STARTTLS when the server offers it. */
  secure: boolean;
  user: string;
  pass: string;
}

/**
 * Reads `imap://user:password@host[:port]` (port 143) or `imaps://…` (port 993). User and password
 * are percent-decoded, so an address as user name is written `me%40example.com`. Throws on anything
 * else; the message never contains the password.
 */
export function parseImapUrl(url: string): ImapEndpoint {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error('the IMAP URL is not a URL (expected imap://user:password@host:port)');
  }
  const secure = parsed.protocol === 'imaps:';
  if (!secure && parsed.protocol !== 'imap:') throw new Error(`the IMAP URL must start with imap:// or imaps://, not ${parsed.protocol}//`);
  if (!parsed.hostname) throw new Error('the IMAP URL names no host');
  if (!parsed.username || !parsed.password) throw new Error('the IMAP URL must carry a user and a password (imap://user:password@host)');
  return {
    // URL keeps the brackets of an IPv6 literal; sockets want the bare address.
    host: parsed.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: parsed.port ? Number(parsed.port) : secure ? 993 : 143,
    secure,
    user: decodeURIComponent(parsed.username),
    pass: decodeURIComponent(parsed.password),
  };
}
