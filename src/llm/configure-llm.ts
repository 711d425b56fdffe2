import { dirname, join } from 'node:path';
import type { Logger } from 'pino';
import { ConfigError, type Config, type Secrets } from '../config/load-config.js';
import { createLlmClient, DEFAULT_BASE_URL, type LlmClient } from './create-llm-client.js';

/**
 * The LLM client from `llm.*`, or null when `llm.model` is not set: then no question is
 * drafted, no answer structured, and expertq behaves exactly as without an `llm` section. A set model
 * whose key variable is unset is a start-up error naming the variable; nothing starts half-configured.
 * Logs once which model and endpoint are used, never the key.
 */
export function configureLlm(config: Config, secrets: Pick<Secrets, 'llmApiKey'>, log: Logger): LlmClient | null {
  const llm = config.llm;
  if (!llm?.model) {
    if (llm) log.warn({ config: config.file }, 'the llm section has no llm.model: questions are not drafted and answers not structured');
    return null;
  }
  if (llm.api_key_env && !secrets.llmApiKey) {
    throw new ConfigError(
      `llm.api_key_env in ${config.file} names the environment variable ${llm.api_key_env}, which is not set ` +
        `(in the environment or in ${join(dirname(config.file), '.env')}). Set it, or remove llm.model to run without an LLM.`,
    );
  }
  const settings = { model: llm.model, baseUrl: llm.base_url ?? DEFAULT_BASE_URL, timeoutMs: llm.timeout, concurrency: llm.concurrency };
  log.info(
    { model: settings.model, base_url: settings.baseUrl, timeout_ms: settings.timeoutMs, concurrency: settings.concurrency, key: llm.api_key_env ? `from ${llm.api_key_env}` : 'none' },
    'LLM drafting and structuring on',
  );
  return createLlmClient(settings, secrets.llmApiKey, log);
}
