import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The calls expertq makes, by `response_format.json_schema.name`. */
export type CallName = 'drafted_question' | 'structured_answer' | 'answer_match';

/** What the fake does with one call. */
export type Behaviour =
  /** 200 with this object as the message content (JSON). */
  | { json: unknown }
  /** 200 with this exact content (say, text that is not JSON). */
  | { content: string }
  /** An HTTP error in OpenAI's error shape, with optional headers (`retry-after`). */
  | { status: number; headers?: Record<string, string>; message?: string }
  /** Never answers: the connection stays open until the client gives up or the fake closes. */
  | { hang: true }
  /** Answers once the test settles this promise, with the behaviour it gives (a result that arrives late). */
  | { after: Promise<Behaviour> };

/** One call the fake received: the schema name, the whole JSON body, the headers and the data block. */
export interface FakeCall {
  name: CallName;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read the body the openai client sent
  body: any;
  headers: IncomingMessage['headers'];
  /** The JSON between the user message's delimiters: what expertq sent as data. */
  data: Record<string, unknown>;
}

type Script = Behaviour | ((call: FakeCall) => Behaviour);

/** A behaviour the test releases later: `{behaviour, release}`. */
export function later(): { behaviour: Behaviour; release: (b: Behaviour) => void } {
  let release!: (b: Behaviour) => void;
  const promise = new Promise<Behaviour>((resolve) => (release = resolve));
  return { behaviour: { after: promise }, release };
}

/** A drafted question a test can recognise: "From memory: <raw question>?". */
export const fakeDraft = (data: Record<string, unknown>) => `From memory: ${String(data.question).replace(/\?+\s*$/, '')}?`;

/**
 * Default answers: a recognisable draft, `{summary, facts}` from the answer with confidence 0.9, and
 * "this library answer does not answer the question" (so an expert is asked unless a test says yes).
 */
const DEFAULTS: Record<CallName, Script> = {
  drafted_question: (call) => ({ json: { question: fakeDraft(call.data) } }),
  structured_answer: (call) => ({ json: { structured: { summary: String(call.data.answer), facts: [String(call.data.answer)] }, confidence: 0.9 } }),
  answer_match: { json: { answers_question: false, confidence: 0.9 } },
};

/**
 * A small OpenAI-compatible server for tests (POST …/chat/completions), started per test on
 * 127.0.0.1:0. It answers each call by the `json_schema.name` it is asked for, with a behaviour the test
 * scripts (valid JSON, invalid JSON, an HTTP error, a hang), records every call, and lets a test wait
 * for the n-th call of a name without sleeping. expertq talks to it through the real `openai` client.
 */
export class FakeLlm {
  readonly calls: FakeCall[] = [];
  private readonly scripts: Record<CallName, Script> = { ...DEFAULTS };
  private readonly events = new EventEmitter();
  private server: Server | null = null;
  url = '';

  async start(): Promise<string> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
    return this.url;
  }

  /** Scripts the answer to every later call of `name`. */
  on(name: CallName, script: Script): this {
    this.scripts[name] = script;
    return this;
  }

  /** Back to the default answers. */
  reset(): this {
    Object.assign(this.scripts, DEFAULTS);
    return this;
  }

  callsOf(name: CallName): FakeCall[] {
    return this.calls.filter((c) => c.name === name);
  }

  /** Resolves once `count` calls of `name` have arrived (event-driven, no polling). */
  waitForCalls(name: CallName, count = 1): Promise<FakeCall[]> {
    return new Promise((resolve) => {
      const check = () => {
        if (this.callsOf(name).length < count) return;
        this.events.off('call', check);
        resolve(this.callsOf(name));
      };
      this.events.on('call', check);
      check();
    });
  }

  async close(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
    this.server = null;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let text = '';
    for await (const chunk of req) text += chunk;
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'not found' } }));
      return;
    }
    const body = JSON.parse(text);
    const name = body.response_format?.json_schema?.name as CallName;
    const user = (body.messages as Array<{ role: string; content: string }>).find((m) => m.role === 'user')?.content ?? '';
    const call: FakeCall = { name, body, headers: req.headers, data: dataOf(user) };
    this.calls.push(call);
    this.events.emit('call');

    const script = this.scripts[name];
    let behaviour = typeof script === 'function' ? script(call) : script;
    while ('after' in behaviour) behaviour = await behaviour.after;
    if ('hang' in behaviour) return;
    if (res.destroyed) return;
    if ('status' in behaviour) {
      res.writeHead(behaviour.status, { 'content-type': 'application/json', ...behaviour.headers });
      res.end(JSON.stringify({ error: { message: behaviour.message ?? `fake error ${behaviour.status}`, type: 'fake_error', code: null } }));
      return;
    }
    const content = 'json' in behaviour ? JSON.stringify(behaviour.json) : behaviour.content;
    const promptTokens = Math.ceil(text.length / 4);
    const completionTokens = Math.ceil(content.length / 4);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: `chatcmpl-fake-${this.calls.length}`,
        object: 'chat.completion',
        created: 0,
        model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, finish_reason: 'stop', logprobs: null }],
        usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
      }),
    );
  }
}

/** The JSON between the first and last line of a delimited user message (`<tag>\n{…}\n</tag>`). */
function dataOf(content: string): Record<string, unknown> {
  const start = content.indexOf('\n');
  const end = content.lastIndexOf('\n');
  try {
    return JSON.parse(content.slice(start + 1, end));
  } catch {
    return {};
  }
}

/** The `llm:` config section for a fake: no key needed for a local base_url. */
export function fakeLlmConfig(fake: FakeLlm, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { model: 'fake-model-1', base_url: fake.url, timeout: '5s', ...extra };
}
