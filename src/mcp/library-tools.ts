import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { answerView, listAnswersQuery } from '../wire/answer-schemas.js';
import type { McpBackend } from './backend.js';
import { run } from './tool-kit.js';

/** Reading the answer library: what experts already answered, before asking one again. */
export function registerLibraryTools(registerTool: McpServer['registerTool'], backend: McpBackend): void {
  registerTool(
    'search_answers',
    {
      title: 'Search answers experts already gave',
      description:
        'Search the library of answers reviewers accepted (and FAQs an admin imported), best matches first. ' +
        'Try this before ask_expert: if an active entry answers your question, use it and ask nobody. Read-only.',
      inputSchema: {
        query: listAnswersQuery.shape.q.unwrap().describe('Words to look for in questions and answers, e.g. "refund window annual plan".'),
        topic: listAnswersQuery.shape.topic.describe('Only entries of this topic.'),
        limit: z.number().int().min(1).max(50).optional().describe('How many entries at most (default 10).'),
      },
      outputSchema: { items: z.array(answerView) },
      annotations: { title: 'Search answers', readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      run(async () => {
        const { items } = await backend.searchAnswers({ q: args.query, topic: args.topic, limit: args.limit ?? 10 });
        const lines = items.map(
          (a) => `${a.id} (${a.status}, ${a.topic}, ${a.expert_name}, verified ${a.verified_at.slice(0, 10)}): Q: ${a.question} A: ${a.answer}`,
        );
        return { text: lines.join('\n') || `No answers match "${args.query}".`, structured: { items } };
      }),
  );
}
