import type * as OpenAiSdk from 'openai';
import type { Logger } from 'pino';
import { formatDuration } from '../config/durations.js';

/** The OpenAI endpoint used when `llm.base_url` is not set. */
export const DEFAULT_BASE_URL = 'https://api.openai.com/v1';

export interface LlmSettings {
  model: string;
  /** The endpoint, `llm.base_url` or the OpenAI default. Never carries the key. */
  baseUrl: string;
  /** `llm.timeout`: bounds each call and how long a first ask waits for its draft. */
  timeoutMs: number;
  /** `llm.concurrency`: calls in flight at once. */
  concurrency: number;
}

export interface ChatMessage {
  role: 'system' | 'user';
  content: string;
}

/** One structured-output call: `response_format: {type: "json_schema", json_schema: {name, strict, schema}}`. */
export interface LlmCall {
  name: 'drafted_question' | 'structured_answer' | 'answer_match';
  schema: Record<string, unknown>;
  strict: boolean;
  messages: ChatMessage[];
  signal?: AbortSignal;
}

export interface TokenUsage {
  prompt_tokens: number | null;
  completion_tokens: number | null;
  total_tokens: number | null;
}

/** What came back, or why nothing usable did. `latency_ms` and `usage` go to the `llm_call` audit row. */
export type LlmReply =
  | { ok: true; content: string; latency_ms: number; usage: TokenUsage | null }
  | { ok: false; error: string; aborted: boolean; latency_ms: number };

/** The one LLM client of a service: a configured `openai` client behind the two calls expertq makes. */
export interface LlmClient {
  readonly settings: LlmSettings;
  complete(call: LlmCall): Promise<LlmReply>;
}

/**
 * Builds the client from `llm.*`. One `openai` client object with the timeout as its own option and
 * no retries of its own: a failed call falls back at once (the raw question, the verbatim answer),
 * which is always usable, instead of holding an ask or a proposal back for retries. Every option the
 * client would otherwise read from the environment (`OPENAI_BASE_URL`, `OPENAI_ORG_ID`, …) is given
 * explicitly, so configuration comes from `service.yaml` alone. A local endpoint without a key gets a
 * placeholder, which such servers ignore.
 */
export function createLlmClient(settings: LlmSettings, apiKey: string | undefined, log: Logger): LlmClient {
  // The SDK is loaded here, not when the module is: a process without `llm.model` never loads it.
  const sdk = openaiSdk();
  const client = sdk.then(({ OpenAI }) => new OpenAI({
    apiKey: apiKey ?? 'no-key',
    baseURL: settings.baseUrl,
    organization: null,
    project: null,
    adminAPIKey: null,
    webhookSecret: null,
    timeout: settings.timeoutMs,
    maxRetries: 0,
    logLevel: 'off',
  }));
  client.catch(() => undefined); // a failed load is the first call's failure
  return {
    settings,
    async complete(call) {
      const started = performance.now();
      const latency = () => Math.round(performance.now() - started);
      try {
        const openai = await client;
        const completion = await openai.chat.completions.create(
          {
            model: settings.model,
            messages: call.messages,
            response_format: { type: 'json_schema', json_schema: { name: call.name, strict: call.strict, schema: call.schema } },
          },
          call.signal ? { signal: call.signal } : undefined,
        );
        const content = completion.choices[0]?.message?.content;
        const usage = completion.usage;
        if (typeof content !== 'string') {
          return { ok: false, error: 'the reply had no message content', aborted: false, latency_ms: latency() };
        }
        return {
          ok: true,
          content,
          latency_ms: latency(),
          usage: usage
            ? { prompt_tokens: usage.prompt_tokens ?? null, completion_tokens: usage.completion_tokens ?? null, total_tokens: usage.total_tokens ?? null }
            : null,
        };
      } catch (error) {
        const loaded = await sdk.catch(() => null);
        const aborted = loaded !== null && error instanceof loaded.APIUserAbortError;
        const reply = { ok: false as const, error: describeError(error, settings.timeoutMs, loaded), aborted, latency_ms: latency() };
        if (!reply.aborted) log.debug({ err: reply.error, stage: call.name }, 'LLM call failed');
        return reply;
      }
    },
  };
}

/** A short, key-free description of a failed call for the audit and the logs. */
function describeError(error: unknown, timeoutMs: number, sdk: typeof OpenAiSdk | null): string {
  if (sdk && error instanceof sdk.APIConnectionTimeoutError) return `no answer within llm.timeout (${formatDuration(timeoutMs)})`;
  if (sdk && error instanceof sdk.APIUserAbortError) return 'call aborted (shutting down)';
  if (sdk && error instanceof sdk.APIError && error.status !== undefined) {
    const retryAfter = error.headers?.get('retry-after');
    return `HTTP ${error.status}${retryAfter ? ` (retry-after ${retryAfter})` : ''}: ${truncate(error.message, 300)}`;
  }
  const message = error instanceof Error ? error.message : String(error);
  // "Connection error." alone does not say which: the innermost cause does (ECONNREFUSED, ENOTFOUND, …).
  let cause: unknown = error instanceof Error ? error.cause : undefined;
  while (cause instanceof Error && cause.cause instanceof Error) cause = cause.cause;
  return truncate(cause instanceof Error ? `${message} (${cause.message})` : message, 300);
}

let loading: Promise<typeof OpenAiSdk> | undefined;
/** The `openai` package, loaded once, on first use. */
function openaiSdk(): Promise<typeof OpenAiSdk> {
  loading ??= import('openai');
  return loading;
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
