import { setTimeout as pause } from 'node:timers/promises';

/**
 * Polls `check` every `everyMs` until it holds; fails with `what` (and `detail()`) after `timeoutMs`.
 * For state inside a child process, which a test cannot subscribe to.
 */
export async function until(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: string,
  detail: () => string = () => '',
  everyMs = 100,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}\n${detail()}`);
    await pause(everyMs);
  }
}
