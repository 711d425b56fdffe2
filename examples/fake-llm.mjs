// A stand-in for an OpenAI-compatible model, to try expertq's LLM features without one (docs/llm.md):
//   node examples/fake-llm.mjs            → listens on http://127.0.0.1:8777/v1
// It answers POST /v1/chat/completions by the `response_format.json_schema.name` it is asked for: a
// "drafted" question (the raw one, prefixed), the answer as the default {summary, facts} with
// confidence 0.8, or "no" when asked whether a library answer answers a new question. It does no
// language work at all; use a real model (Ollama, OpenAI, …) for that.
import { createServer } from 'node:http';
import { clearTimeout, setTimeout } from 'node:timers';
import { fileURLToPath } from 'node:url';

/** The JSON between the delimiters of expertq's user message. */
function dataOf(messages) {
  const content = messages.find((m) => m.role === 'user')?.content ?? '';
  return JSON.parse(content.slice(content.indexOf('\n') + 1, content.lastIndexOf('\n')));
}

function answer(body) {
  const name = body.response_format?.json_schema?.name;
  if (name === 'answer_match') return { answers_question: false, confidence: 0.5 };
  const data = dataOf(body.messages);
  if (name === 'drafted_question') {
    return { question: `In a sentence or two: ${String(data.question).replace(/\?+\s*$/, '')}?` };
  }
  const text = String(data.answer);
  return { structured: { summary: text.split(/(?<=[.!?])\s/)[0], facts: [text] }, confidence: 0.8 };
}

/** Starts the stand-in; `delayMs` makes it answer slowly (the benchmark uses 200 ms). */
export async function startFakeLlm({ port = 0, delayMs = 0 } = {}) {
  let calls = 0;
  const timers = new Set();
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk) => (text += chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url.endsWith('/chat/completions')) return res.writeHead(404).end();
      const body = JSON.parse(text);
      const timer = setTimeout(() => {
        timers.delete(timer);
        calls++;
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({
          id: `chatcmpl-fake-${calls}`,
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model: body.model,
          choices: [{ index: 0, message: { role: 'assistant', content: JSON.stringify(answer(body)), refusal: null }, finish_reason: 'stop', logprobs: null }],
          usage: { prompt_tokens: Math.ceil(text.length / 4), completion_tokens: 20, total_tokens: Math.ceil(text.length / 4) + 20 },
        }));
      }, delayMs);
      timers.add(timer);
    });
  });
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/v1`,
    calls: () => calls,
    async close() {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { url } = await startFakeLlm({ port: Number(process.env.PORT ?? 8777) });
  console.log(`fake OpenAI-compatible endpoint on ${url} (base_url for service.yaml); Ctrl-C stops it`);
}
