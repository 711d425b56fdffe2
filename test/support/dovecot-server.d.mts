/** A running throwaway Dovecot (see dovecot-server.mjs). */
export interface Dovecot {
  /** `imap://user:password@127.0.0.1:port`, ready for `ImapInbox`. */
  url: string;
  user: string;
  password: string;
  host: string;
  port: number;
  /** The temporary directory (config, log, Maildir). */
  dir: string;
  /** Dovecot's log so far, for failure messages. */
  log(): string;
  /** Ends every IMAP session of the user (as a dropped connection would), keeping the server up. */
  kick(): void;
  /** Ends the server and deletes its directory; safe to call more than once. */
  stop(): Promise<void>;
}

export interface DovecotOptions {
  /** Lines added to dovecot.conf, e.g. `imap_capability = IMAP4rev1` to serve without IDLE. */
  extraConfig?: string;
}

export const DOVECOT: string;
export const HAVE_DOVECOT: boolean;
export function startDovecot(options?: DovecotOptions): Promise<Dovecot>;
