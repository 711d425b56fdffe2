import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { BIN, cleanEnv, SPAWN_TIMEOUT_MS } from './cli.js';

/** A pino line the server printed at level error (50) or above. */
export type LogLine = Record<string, unknown> & { level: number; msg?: string };

/**
 * `expertq serve --config <file>` as a child process that can be started, killed with SIGKILL and
 * started again on the same config and database, as often as a test likes. Stdout is read line by
 * line (pino JSON and console-transport text); error-level log lines of every run are kept, and the
 * last lines of the current run for diagnostics. No sleeping: readiness is the "expertq is serving"
 * log line.
 */
export class ServerChild {
  /** How many times the server was started. */
  starts = 0;
  /** Error-level (>= 50) pino lines of every run so far. */
  readonly errors: LogLine[] = [];
  private child: ChildProcess | null = null;
  private closed: Promise<void> = Promise.resolve();
  private tail: string[] = [];
  private stderr = '';

  constructor(
    readonly configFile: string,
    private readonly env: NodeJS.ProcessEnv = cleanEnv(),
    /** More `serve` arguments, e.g. `['--transport', 'chat']`. */
    private readonly args: readonly string[] = [],
    /** Another command line and folder to start instead of `dist/` (a container's CMD, say); `configFile` then goes unused. */
    private readonly command?: { argv: readonly [string, ...string[]]; cwd: string },
  ) {
    if (!command && !existsSync(BIN)) throw new Error(`${BIN} is missing: run "npm run build" first.`);
  }

  get running(): boolean {
    return this.child !== null;
  }

  /** Starts the server and resolves with its URL once it logs "expertq is serving". */
  start(timeoutMs = SPAWN_TIMEOUT_MS): Promise<string> {
    if (this.child) throw new Error('the server is already running');
    this.starts++;
    this.tail = [];
    this.stderr = '';
    const [program, ...argv] = this.command?.argv ?? [process.execPath, BIN, 'serve', '--config', this.configFile, ...this.args];
    const child = spawn(program, argv, {
      cwd: this.command?.cwd ?? dirname(this.configFile),
      env: this.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    this.closed = new Promise((resolve) => child.once('close', () => resolve()));

    return new Promise<string>((resolve, reject) => {
      let ready = false;
      let partial = '';
      const timer = setTimeout(() => fail(`did not log "expertq is serving" within ${timeoutMs} ms`), timeoutMs);
      const fail = (why: string) => {
        if (ready) return;
        ready = true;
        clearTimeout(timer);
        child.kill('SIGKILL');
        reject(new Error(`server start #${this.starts} ${why}\n${this.diagnostics()}`));
      };
      child.stdout!.setEncoding('utf8');
      child.stdout!.on('data', (chunk: string) => {
        const lines = (partial + chunk).split('\n');
        partial = lines.pop()!;
        for (const line of lines) {
          this.remember(line);
          if (!line.startsWith('{')) continue;
          let parsed: LogLine;
          try {
            parsed = JSON.parse(line) as LogLine;
          } catch {
            continue;
          }
          if (typeof parsed.level === 'number' && parsed.level >= 50) this.errors.push(parsed);
          if (!ready && parsed.msg === 'expertq is serving') {
            ready = true;
            clearTimeout(timer);
            resolve(String(parsed.url));
          }
        }
      });
      child.stderr!.setEncoding('utf8');
      child.stderr!.on('data', (chunk: string) => (this.stderr = (this.stderr + chunk).slice(-20_000)));
      child.once('error', (error) => fail(`failed to spawn: ${error.message}`));
      child.once('close', (code, signal) => {
        if (this.child === child) this.child = null;
        fail(`exited (${signal ?? code}) before it was serving`);
      });
    });
  }

  /** `kill -9`: no shutdown hooks, no flush; resolves once the process is gone. */
  async kill9(): Promise<void> {
    const child = this.child;
    if (!child) return;
    child.kill('SIGKILL');
    await this.closed;
    this.child = null;
  }

  /** Graceful stop (SIGTERM: the server closes HTTP, lets deliveries in flight finish, closes the database). */
  async stop(timeoutMs = SPAWN_TIMEOUT_MS): Promise<number | null> {
    const child = this.child;
    if (!child) return null;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    await this.closed;
    clearTimeout(timer);
    this.child = null;
    return child.exitCode;
  }

  /** Sends a signal to the running server (SIGHUP: read the config file again). */
  signal(name: NodeJS.Signals): void {
    if (!this.child) throw new Error('the server is not running');
    this.child.kill(name);
  }

  /** The last lines of stdout and stderr of the current (or last) run. */
  diagnostics(): string {
    return `--- last stdout lines ---\n${this.tail.join('\n')}\n--- stderr ---\n${this.stderr}`;
  }

  private remember(line: string): void {
    this.tail.push(line.length > 2_000 ? `${line.slice(0, 2_000)}…` : line);
    if (this.tail.length > 60) this.tail.shift();
  }
}
