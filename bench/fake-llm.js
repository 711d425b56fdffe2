// A stand-in OpenAI-compatible endpoint for the benchmark: POST …/chat/completions, answered after a
// fixed delay with a valid draft or structured answer (by `response_format.json_schema.name`).
import { createServer } from 'node:http';
import { clearTimeout, setTimeout } from 'node:timers';

/** Starts it on 127.0.0.1:0; `calls()` counts the calls it answered. */
export async function startFakeLlm({ delayMs = 200 } = {}) {
  let calls = 0;
  const timers = new Set();
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk) => (text += chunk));
    req.on('end', () => {
      const body = JSON.parse(text);
      const draft = body.response_format?.json_schema?.name === 'drafted_question';
      const content = draft ? { question: 'From memory, what is the current value for this case?' } : { structured: { summary: 'ok', facts: [] }, confidence: 0.9 };
      const timer = setTimeout(() => {
        timers.delete(timer);
        calls++;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({
          id: `chatcmpl-bench-${calls}`,
          object: 'chat.completion',
          created: 0,
          model: body.model,
          choices: [{ index: 0, message: { role: 'assistant', content: JSON.stringify(content), refusal: null }, finish_reason: 'stop', logprobs: null }],
          usage: { prompt_tokens: 200, completion_tokens: 20, total_tokens: 220 },
        }));
      }, delayMs);
      timers.add(timer);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
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
