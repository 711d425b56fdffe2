import { pino, type DestinationStream, type Logger } from 'pino';

/** One pino logger per process. Secrets never reach it: the token is redacted wherever it might appear. */
export function createLogger(destination?: DestinationStream, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino(
    {
      name: 'expertq',
      level,
      redact: { paths: ['req.headers.authorization', 'headers.authorization', '*.signing_secret', '*.secret'], censor: '[redacted]' },
    },
    destination,
  );
}
