import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerError } from 'smtp-server';

/** A mail as the server received it: the raw message and the SMTP envelope. */
export interface ReceivedMail {
  raw: Buffer;
  envelope: { from: string; to: string[] };
}

export interface TestSmtpServer {
  /** `smtp://[user:pass@]127.0.0.1:<port>` for `SmtpSender`. */
  url: string;
  /** Every mail accepted, in order of arrival. */
  messages: ReceivedMail[];
  /** From now on, `RCPT TO` this address is answered with `code` (e.g. 450, 550). */
  rejectRecipient(address: string, code: number): void;
  close(): Promise<void>;
}

/**
 * A real SMTP server on loopback, a random port, plain text (no STARTTLS offered, so nodemailer does
 * not try to upgrade), with or without a fixed login. It keeps every mail raw, for tests to parse as
 * a mail client would, and can refuse chosen recipients with a chosen reply code.
 */
export async function startSmtpServer(options: { auth?: { user: string; pass: string } } = {}): Promise<TestSmtpServer> {
  const messages: ReceivedMail[] = [];
  const refused = new Map<string, number>();
  const auth = options.auth;
  const server = new SMTPServer({
    secure: false,
    disabledCommands: auth ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    authOptional: !auth,
    allowInsecureAuth: true,
    logger: false,
    onAuth(login, _session, callback) {
      if (auth && login.username === auth.user && login.password === auth.pass) return callback(null, { user: login.username });
      callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    },
    onRcptTo(address, _session, callback) {
      const code = refused.get(address.address.toLowerCase());
      if (!code) return callback();
      const error: SMTPServerError = Object.assign(new Error(`Mailbox ${address.address} refused by the test`), { responseCode: code });
      callback(error);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        messages.push({
          raw: Buffer.concat(chunks),
          envelope: { from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address) },
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;
  const login = auth ? `${encodeURIComponent(auth.user)}:${encodeURIComponent(auth.pass)}@` : '';
  return {
    url: `smtp://${login}127.0.0.1:${port}`,
    messages,
    rejectRecipient: (address, code) => void refused.set(address.toLowerCase(), code),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
