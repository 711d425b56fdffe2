import { createRequire } from 'node:module';
import { pino, type DestinationStream, type Logger } from 'pino';
import type PinoPretty from 'pino-pretty';
import { ConfigError } from './config/load-config.js';

/** pino-pretty, loaded only for readable lines: JSON logging (any log collector) never needs it. */
const pretty = (options: PinoPretty.PrettyOptions) => (createRequire(import.meta.url)('pino-pretty') as typeof PinoPretty)(options);

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/**
 * One pino logger per process. Secrets never reach it: the token is redacted wherever it might appear.
 * On a terminal the lines are readable (pino-pretty, written synchronously so nothing is lost at exit);
 * anywhere else, one JSON object per line for a log collector. `LOG_FORMAT=json|pretty` overrides the
 * guess, `LOG_LEVEL` sets the level.
 */
export function createLogger(
  destination?: DestinationStream,
  level = (process.env.LOG_LEVEL ?? 'info').toLowerCase(),
  format = process.env.LOG_FORMAT?.toLowerCase(),
): Logger {
  if (!LEVELS.includes(level)) throw new ConfigError(`LOG_LEVEL must be one of ${LEVELS.join(', ')} (got "${level}").`);
  if (format !== undefined && format !== '' && format !== 'json' && format !== 'pretty') {
    throw new ConfigError(`LOG_FORMAT must be json or pretty (got "${format}").`);
  }
  const readable = destination === undefined ? stdoutLogsReadable(format) : format === 'pretty';
  const target =
    readable && destination === undefined
      ? pretty({ sync: true, colorize: process.stdout.isTTY === true, translateTime: 'SYS:yyyy-mm-dd HH:MM:ss.l o', ignore: 'pid,hostname,name' })
      : readable
        ? pretty({ sync: true, colorize: false, translateTime: 'SYS:yyyy-mm-dd HH:MM:ss.l o', ignore: 'pid,hostname,name', destination })
        : destination;
  return pino(
    {
      name: 'expertq',
      level,
      redact: { paths: ['req.headers.authorization', 'headers.authorization', '*.signing_secret', '*.secret'], censor: '[redacted]' },
    },
    target,
  );
}

/**
 * Whether a logger writing to stdout writes readable lines (a terminal, or LOG_FORMAT=pretty) rather
 * than one JSON object per line. Anything else printed for people then goes to stderr, so a log
 * collector reading stdout only ever sees JSON.
 */
export function stdoutLogsReadable(format = process.env.LOG_FORMAT?.toLowerCase()): boolean {
  return format === 'pretty' || ((format === undefined || format === '') && process.stdout.isTTY === true);
}
