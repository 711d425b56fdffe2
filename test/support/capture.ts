import { Writable } from 'node:stream';
import type { Logger } from 'pino';
import { createLogger } from '../../src/log.js';

/** A writable that keeps what was written, so tests can assert on console output and log lines. */
export class Capture extends Writable {
  chunks: string[] = [];
  override _write(chunk: Buffer | string, _enc: BufferEncoding, done: () => void): void {
    this.chunks.push(chunk.toString());
    done();
  }
  get text(): string {
    return this.chunks.join('');
  }
  /** Parsed pino lines. */
  get lines(): Array<Record<string, unknown>> {
    return this.text
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l));
  }
}

export function captureLogger(): { log: Logger; logs: Capture } {
  const logs = new Capture();
  return { log: createLogger(logs, 'debug'), logs };
}
