import { afterEach, beforeEach } from 'vitest';
import { FakeLlm, fakeLlmConfig } from './fake-llm.js';
import { schedulerKit, type SchedulerKit } from './scheduler-kit.js';

/**
 * A fake LLM per test (started before, closed after) and a scheduler kit configured to use it, opened
 * by `start` with extra `llm.*` keys and config sections. Registers its own hooks.
 */
export function useLlmKit(): { readonly fake: FakeLlm; start(llm?: Record<string, unknown>, config?: Record<string, unknown>): Promise<SchedulerKit> } {
  let fake: FakeLlm | null = null;
  let kit: SchedulerKit | null = null;
  beforeEach(async () => {
    fake = new FakeLlm();
    await fake.start();
  });
  afterEach(async () => {
    await kit?.close();
    kit = null;
    await fake?.close();
  });
  return {
    get fake() {
      return fake!;
    },
    async start(llm = {}, config = {}) {
      kit = await schedulerKit({ config: { llm: fakeLlmConfig(fake!, llm), ...config } });
      return kit;
    },
  };
}
