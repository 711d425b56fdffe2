import { afterAll, beforeAll } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDocument } from 'yaml';

/**
 * Helpers for end-to-end CLI tests: the real `expertq` binary (dist/cli/main.js) as a child process,
 * against a real `expertq serve` child process. Build first (`npm run build`).
 */

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BIN = join(ROOT, 'dist', 'cli', 'main.js');
export const EXAMPLE_CONFIG = join(ROOT, 'service.example.yaml');
export const TEST_TOKEN = 'cli-test-token-5f1c9a';
/** Generous: a cold `node` start on a busy 2-core CI machine can take seconds. */
export const SPAWN_TIMEOUT_MS = 20_000;
/** Per-test budget for tests that run a dozen CLI processes one after another. */
export const CLI_TEST_TIMEOUT_MS = 120_000;

function assertBuilt(): void {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run "npm run build" before the CLI tests.`);
}

/** A port nobody listens on right now: listen on port 0, note the port, close. */
export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

/** What the CLI defaults `--decided-by` to: the OS user name. */
export function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER ?? 'cli';
  }
}

/** The test runner's environment without any token the developer may have set. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  if (!('SERVICE_API_TOKEN' in extra)) delete env.SERVICE_API_TOKEN;
  if (!('LOG_LEVEL' in extra)) delete env.LOG_LEVEL;
  if (!('LOG_FORMAT' in extra)) delete env.LOG_FORMAT;
  if (!('PORT' in extra)) delete env.PORT;
  return env;
}

export interface Workspace {
  dir: string;
  configFile: string;
  port: number;
  url: string;
  /** Moves the server to another free port (rewrites server.port, keeping the comments). */
  movePort(): Promise<void>;
  remove(): void;
}

/**
 * A temp dir with its own service.yaml: the shipped example (comments and all) with `server.port` set
 * to a free port and the database inside the temp dir.
 */
export async function makeWorkspace(): Promise<Workspace> {
  const dir = mkdtempSync(join(tmpdir(), 'expertq-cli-'));
  const configFile = join(dir, 'service.yaml');
  const doc = parseDocument(readFileSync(EXAMPLE_CONFIG, 'utf8'));
  doc.setIn(['storage', 'path'], join(dir, 'expertq.db'));
  const ws: Workspace = {
    dir,
    configFile,
    port: 0,
    url: '',
    async movePort() {
      ws.port = await freePort();
      ws.url = `http://127.0.0.1:${ws.port}`;
      doc.setIn(['server', 'port'], ws.port);
      writeFileSync(configFile, doc.toString());
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
  await ws.movePort();
  return ws;
}

/**
 * `startServe` for a workspace. The free port is found by listening and closing, so another process
 * may take it before the server binds: then it moves to a new port and tries again.
 */
export async function serveWorkspace(ws: Workspace): Promise<ServerProcess> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startServe(ws.configFile);
    } catch (error) {
      if (attempt >= 3 || !/EADDRINUSE/.test(String(error))) throw error;
      await ws.movePort();
    }
  }
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

/** Runs `expertq <args>` to completion. Rejects (and kills it) if it has not exited in SPAWN_TIMEOUT_MS. */
export function runCli(args: string[], options: RunOptions = {}): Promise<CliResult> {
  return startCli(args, options, SPAWN_TIMEOUT_MS).result;
}

export interface RunningCli {
  /** Resolves with the first stdout match while the command still runs; rejects if it exits first. */
  waitForStdout(match: RegExp): Promise<RegExpMatchArray>;
  /** The finished command. */
  result: Promise<CliResult>;
}

/**
 * Starts `expertq <args>` and lets a test read its output while it runs (e.g. `ask --wait`). The
 * result rejects (and the command is killed) if it has not exited within `timeoutMs`.
 */
export function startCli(args: string[], options: RunOptions = {}, timeoutMs = CLI_TEST_TIMEOUT_MS): RunningCli {
  assertBuilt();
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? tmpdir(),
    env: options.env ?? cleanEnv({ SERVICE_API_TOKEN: TEST_TOKEN }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const listeners = new Set<() => void>();
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    listeners.forEach((listener) => listener());
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const result = new Promise<CliResult>((resolveRun, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`expertq ${args.join(' ')} did not exit within ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      listeners.forEach((listener) => listener());
      resolveRun({ code, stdout, stderr });
    });
  });
  let exited = false;
  void result.then(() => (exited = true), () => (exited = true));
  return {
    result,
    waitForStdout: (match) =>
      new Promise((resolveWait, reject) => {
        const check = () => {
          const found = stdout.match(match);
          if (found) {
            listeners.delete(check);
            resolveWait(found);
          } else if (exited || child.exitCode !== null) {
            listeners.delete(check);
            reject(new Error(`expertq ${args.join(' ')} exited before printing ${match}\nstdout: ${stdout}\nstderr: ${stderr}`));
          }
        };
        listeners.add(check);
        check();
      }),
  };
}

/** `expertq --config <file> <args>`: a client command against a workspace's server. */
export function cliFor(ws: Workspace, env?: NodeJS.ProcessEnv) {
  return (...args: string[]) => runCli(['--config', ws.configFile, ...args], { env, cwd: ws.dir });
}

/**
 * One workspace and one running `expertq serve` for a whole test file: registers the beforeAll that
 * starts it and the afterAll that stops it and removes the workspace.
 */
export function useServedWorkspace(): { readonly ws: Workspace; readonly server: ServerProcess; cli: (...args: string[]) => Promise<CliResult> } {
  let ws: Workspace | undefined;
  let server: ServerProcess | undefined;
  beforeAll(async () => {
    ws = await makeWorkspace();
    server = await serveWorkspace(ws);
  });
  afterAll(async () => {
    await server?.stop();
    ws?.remove();
  });
  return {
    get ws() {
      return ws!;
    },
    get server() {
      return server!;
    },
    cli: (...args) => cliFor(ws!)(...args),
  };
}

/** Parses a command's `--json` output, failing with the command's stderr when it did not succeed. */
export function jsonOf<T = unknown>(result: CliResult): T {
  if (result.code !== 0) throw new Error(`command failed (${result.code}): ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

export interface ServerProcess {
  child: ChildProcess;
  /** The URL from the server's "expertq is serving" log line. */
  url: string;
  /** Everything the server printed to stdout so far (pino lines and console-transport blocks). */
  stdout(): string;
  stderr(): string;
  /** Console-transport messages so far, one string per "── message to" block. */
  messages(): string[];
  /** Resolves with the first stdout text matching; rejects on timeout or if the server exits. */
  waitForStdout(match: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Resolves with the first console-transport message satisfying the predicate. */
  waitForMessage(predicate: (message: string) => boolean, timeoutMs?: number): Promise<string>;
  stop(): Promise<void>;
}

/** Pino lines at level error (50) or above in the server's stdout: a normal session has none. */
export function loggedErrors(stdout: string): Array<Record<string, unknown>> {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => typeof line.level === 'number' && line.level >= 50);
}

/** Lines of the server's stdout that are not one JSON object: a piped server writes none. */
export function nonJsonLines(stdout: string): string[] {
  return stdout.split('\n').filter((line) => {
    if (line === '') return false;
    try {
      return typeof JSON.parse(line) !== 'object';
    } catch {
      return true;
    }
  });
}

/** A piped server's stderr without the console transport's message blocks: a normal session leaves nothing. */
export function stderrBesideMessages(stderr: string): string {
  return stderr.split(/\n(?=── message to )/).filter((part) => !part.startsWith('── message to ')).join('').trim();
}

export function messageBlocks(stdout: string): string[] {
  return stdout
    .split(/\n(?=── message to )/)
    .filter((part) => part.startsWith('── message to '))
    .map((part) => part.split('\n\n')[0]!.trimEnd());
}

/**
 * Starts `expertq serve --config <configFile>` and resolves once it logs "expertq is serving".
 * Rejects with its output if it exits first or does not get there in time.
 */
export async function startServe(
  configFile: string,
  env: NodeJS.ProcessEnv = cleanEnv({ SERVICE_API_TOKEN: TEST_TOKEN }),
  /** A command line to run as typed into a shell in the config's folder, instead of the usual one. */
  shellCommand?: string,
): Promise<ServerProcess> {
  assertBuilt();
  const options = { cwd: dirname(configFile), env, stdio: ['ignore', 'pipe', 'pipe'] as ['ignore', 'pipe', 'pipe'] };
  const child = shellCommand
    ? spawn('sh', ['-c', `exec ${shellCommand}`], options)
    : spawn(process.execPath, [BIN, 'serve', '--config', configFile], options);
  let out = '';
  let err = '';
  let exited: number | string | null | undefined;
  const listeners = new Set<() => void>();
  const notify = () => listeners.forEach((listener) => listener());
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    notify();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString();
    notify();
  });
  const closed = new Promise<void>((resolveClose) =>
    child.once('close', (code, signal) => {
      exited = code ?? signal;
      notify();
      resolveClose();
    }),
  );

  function waitFor<T>(probe: () => T | undefined, what: string, timeoutMs = SPAWN_TIMEOUT_MS): Promise<T> {
    return new Promise((resolveWait, reject) => {
      const check = () => {
        const found = probe();
        if (found !== undefined) return finish(() => resolveWait(found));
        if (exited !== undefined) finish(() => reject(new Error(`server exited (${exited}) before ${what}\nstdout: ${out}\nstderr: ${err}`)));
      };
      const timer = setTimeout(() => finish(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}\nstdout: ${out}\nstderr: ${err}`))), timeoutMs);
      const finish = (settle: () => void) => {
        clearTimeout(timer);
        listeners.delete(check);
        settle();
      };
      listeners.add(check);
      check();
    });
  }

  const server: ServerProcess = {
    child,
    url: '',
    stdout: () => out,
    stderr: () => err,
    // JSON logs on stdout (a pipe): the console transport's readable blocks are on stderr.
    messages: () => [...messageBlocks(err), ...messageBlocks(out)],
    waitForStdout: (match, timeoutMs) => waitFor(() => out.match(match) ?? undefined, String(match), timeoutMs),
    waitForMessage: (predicate, timeoutMs) => waitFor(() => server.messages().find(predicate), 'a matching "── message to" block', timeoutMs),
    async stop() {
      if (exited !== undefined) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), SPAWN_TIMEOUT_MS);
      await closed;
      clearTimeout(timer);
    },
  };
  try {
    const [line] = await server.waitForStdout(/^\{.*"msg":"expertq is serving".*$/m);
    server.url = (JSON.parse(line) as { url: string }).url;
  } catch (error) {
    await server.stop();
    throw error;
  }
  return server;
}
