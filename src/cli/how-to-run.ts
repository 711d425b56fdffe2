import { existsSync, realpathSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveConfigPath } from '../config/resolve-config-path.js';

/** This CLI's entry point (dist/cli/main.js once built) and the package it belongs to. */
const MAIN = join(dirname(fileURLToPath(import.meta.url)), 'main.js');
const PACKAGE_ROOT = resolve(dirname(MAIN), '..', '..');

export interface Shell {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** The entry point the hint should run (tests point it at the built binary). */
  main?: string;
}

/**
 * A command line a person can paste into a shell opened in `cwd` to run this CLI on `configPath`, for
 * the hints expertq prints (`init`, the console transport, `backup`). The program part is:
 * - `expertq` when that name on the PATH is this very CLI (after `npm link` or a symlink);
 * - `npx expertq` inside the clone, where npx runs the clone's own bin (never the registry's);
 * - otherwise `node /absolute/path/to/dist/cli/main.js`.
 *
 * `--config` is added unless the CLI, started there, would find that file by itself.
 */
export function howToRun(configPath: string, args: string, shell: Shell = {}): string {
  const env = shell.env ?? process.env;
  const cwd = shell.cwd ?? process.cwd();
  const main = shell.main ?? MAIN;
  const config = resolve(cwd, configPath);
  // Found by itself: ./service.yaml or ./service.example.yaml. Not EXPERTQ_CONFIG, which the shell the
  // hint is pasted into may not have.
  const found = resolveConfigPath(undefined, {}, cwd).path === config;
  const shown = relative(cwd, config);
  const configFlag = found ? '' : ` --config ${quote(shown.startsWith('..') || isAbsolute(shown) ? config : shown)}`;
  return `${program(main, env, cwd)} ${args}${configFlag}`;
}

function program(main: string, env: NodeJS.ProcessEnv, cwd: string): string {
  const real = realOrNull(main);
  if (real !== null && firstOnPath('expertq', env) === real) return 'expertq';
  const root = real === null ? PACKAGE_ROOT : resolve(dirname(real), '..', '..');
  const inside = relative(root, resolve(cwd));
  if (!inside.startsWith('..') && !isAbsolute(inside)) return 'npx expertq';
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
