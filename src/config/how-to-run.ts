import { existsSync, realpathSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The CLI's entry point (dist/cli/main.js once built). */
const MAIN = join(dirname(fileURLToPath(import.meta.url)), '..', 'cli', 'main.js');

export interface Shell {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** The entry point the hint should run (tests point it at the built binary). */
  main?: string;
}

/**
 * A command line a person can paste into any shell, in any folder, to run this CLI on `configPath`,
 * for the hints expertq prints (`init`, the console transport, `backup`'s restore line, which people
 * keep for later):
 * - `expertq` when that name on the user's PATH is this very CLI (after `npm link` or a symlink),
 *   otherwise `node /absolute/path/to/dist/cli/main.js`. Never `npx expertq`: outside the clone that
 *   asks the npm registry for a package of that name.
 * - Always `--config` with the absolute path: a hint pasted elsewhere must not find another
 *   configuration (a restore onto another database) or none.
 */
export function howToRun(configPath: string, args: string, shell: Shell = {}): string {
  return hintCommand(configPath, shell)(args);
}

/**
 * `howToRun` for many hints (one per console ask): the PATH is searched once, here, not per message.
 */
export function hintCommand(configPath: string, shell: Shell = {}): (args: string) => string {
  const prefix = program(shell.main ?? MAIN, shell.env ?? process.env);
  const config = quote(resolve(shell.cwd ?? process.cwd(), configPath));
  return (args) => `${prefix} ${args} --config ${config}`;
}

/**
 * `hintCommand` for commands that call the running server: they also carry `--url` with the address
 * it really listens on (`server.port`, `PORT` or `serve --port`), so a hint pasted into a shell
 * without the server's `PORT` still reaches it. `serverUrl` answers undefined while that is not known
 * yet (port 0 before listening): the hint then goes without.
 */
export function clientHintCommand(configPath: string, serverUrl: () => string | undefined, shell: Shell = {}): (args: string) => string {
  const hint = hintCommand(configPath, shell);
  return (args) => {
    const url = serverUrl();
    return hint(url === undefined ? args : `${args} --url ${quote(url)}`);
  };
}

/**
 * The URL a client on this machine uses to reach a server listening on `host`:`port`: a wildcard
 * address (`0.0.0.0`, `::`) is reached on loopback; an IPv6 address is bracketed.
 */
export function localServerUrl(host: string, port: number): string {
  const name = host === '0.0.0.0' || host === '' ? '127.0.0.1' : host === '::' ? '[::1]' : host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return `http://${name}:${port}`;
}

function program(main: string, env: NodeJS.ProcessEnv): string {
  const real = realOrNull(main);
  if (real !== null && firstOnPath('expertq', env) === real) return 'expertq';
  return `node ${quote(real ?? main)}`;
}

/**
 * What npm and npx add to the PATH of what they run (`node_modules/.bin` folders, npx's cache, npm's
 * node-gyp shim): under `npx expertq` the CLI finds itself there, but the shell the hint is pasted into
 * does not have them.
 */
const ADDED_BY_NPM = /(^|\/)node_modules\/\.bin\/?$|\/_npx\/|node-gyp-bin\/?$/;

/** The real path of the first `name` on the PATH, as a shell would pick it. */
function firstOnPath(name: string, env: NodeJS.ProcessEnv): string | null {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '' || ADDED_BY_NPM.test(dir)) continue;
    const candidate = join(dir, name);
    if (existsSync(candidate)) return realOrNull(candidate);
  }
  return null;
}

function realOrNull(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

/** Single-quotes a word for a POSIX shell when it holds anything beyond plain path characters. */
function quote(word: string): string {
  return /^[\w./@%+=:,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
