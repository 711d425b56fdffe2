import type { Logger } from 'pino';
import type { TickResult } from '../service/timed-work.js';

/**
 * One scheduler tick from a timer. Errors are logged, never thrown: a failed tick (say, the disk is
 * briefly full) leaves every deadline in the database, and the next tick picks it up.
 */
export function runTick(service: { tick(): TickResult }, log: Logger): void {
  try {
    service.tick();
  } catch (error) {
    log.error({ err: error }, 'scheduler tick failed; due work is retried on the next tick');
  }
}
