import type { Logger } from 'pino';
import type { TickResult } from '../service/operations/index.js';

/**
 * One scheduler tick from a timer. Errors are logged, never thrown: a failed tick (say, the disk is
 * briefly full) leaves every deadline in the database, and the next tick picks it up.
 */
export async function runTick(service: { tick(): Promise<TickResult> }, log: Logger): Promise<void> {
  try {
    await service.tick();
  } catch (error) {
    log.error({ err: error }, 'scheduler tick failed; due work is retried on the next tick');
  }
}
