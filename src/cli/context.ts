import { statSync } from 'node:fs';
import { userInfo } from 'node:os';
import type { Command } from 'commander';
import { systemReason } from '../config/load-config.js';
import { resolveConfigPath } from '../config/resolve-config-path.js';
import { createClient, type Client } from '../client/client.js';
import { CliError } from './cli-error.js';
import { formatWhen } from '../core/describe-time.js';

export { PACKAGE_ROOT } from '../package-info.js';

export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
}

/** What every group of commands uses: the global options, the API client and the ways to print. */
export interface CliContext {
  program: Command;
  say(line?: string): void;
  /** Aligned columns; long cells are cut with … so a row stays on one line. */
  table(head: string[], rows: string[][], lastMax?: number): void;
  /** The running server's client, from --config, --url and --timeout. */
  client(): Client;
  json(): boolean;
  /** `value` as JSON with --json, else the human form. */
  print(value: unknown, human: () => void): void;
  /** A server time for a reader: "14:00 UTC today", else with its date (org.timezone when the config has it). */
  when(iso: string, client: Client): string;
}

export function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER ?? 'cli';
  }
}

export function makeContext(program: Command, io: Io): CliContext {
  const say = (line = '') => io.out(`${line}\n`);
  const json = () => Boolean(program.opts().json);
  return {
    program,
    say,
    json,
    print: (value, human) => (json() ? say(JSON.stringify(value, null, 2)) : human()),
    table(head, rows, lastMax = 80) {
      const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
      const cells = [head, ...rows].map((row) => row.map((cell, i) => cut(cell, i === row.length - 1 ? lastMax : 32)));
      const widths = head.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
      for (const row of cells) say(row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ').trimEnd());
    },
    client() {
      const opts = program.opts<{ config?: string; url?: string; timeout?: string }>();
      const config = resolveConfigPath(opts.config);
      if (config.from !== './service.yaml') {
        // An existing file the CLI may not reach (a folder on its path it may not enter) is not "not found".
        try {
          statSync(config.path);
        } catch (error) {
          const e = error as NodeJS.ErrnoException;
          if (e.code === 'ENOENT') throw new CliError(`Configuration file not found: ${config.path} (from ${config.from})`);
          throw new CliError(`Cannot read the configuration file ${config.path} (from ${config.from}): ${systemReason(e)}.`);
        }
      }
      const timeoutS = Number(opts.timeout ?? 10);
      if (!(timeoutS > 0)) throw new CliError('--timeout must be a number of seconds greater than 0.', 2);
      return createClient({ config: config.path, configFrom: config.from, url: opts.url, timeoutMs: timeoutS * 1000 });
    },
    when: (iso, client) => formatWhen(iso, Date.now(), client.timeZone),
  };
}
