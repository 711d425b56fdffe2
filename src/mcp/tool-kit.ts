import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { mayPerform, type Operation, type Role } from '../service/sessions/index.js';
import { McpToolError } from './backend.js';

/** The operation each tool performs: a tool is listed only for roles that may perform it. */
const TOOL_OPERATIONS: Readonly<Record<string, Operation>> = {
  ask_expert: 'submit_request',
  wait_for_answer: 'read_request',
  get_request: 'read_request',
  cancel_request: 'cancel_request',
  list_topics: 'read_topics',
  list_experts: 'read_experts',
  list_pending: 'read_queue',
  accept_proposal: 'decide',
  reject_proposal: 'decide',
  return_proposal: 'decide',
  search_answers: 'read_answers',
};

/** `server.registerTool` for one caller: a tool is registered (listed) only when the role may perform its operation. */
export function toolRegistrar(server: McpServer, role: Role): McpServer['registerTool'] {
  return ((name: string, config: never, handler: never) => {
    return mayPerform(role, TOOL_OPERATIONS[name]!) ? server.registerTool(name, config, handler) : undefined;
  }) as McpServer['registerTool'];
}

/** Runs a tool body; a failure becomes an `isError` result whose text starts with the API error code. */
export async function run(body: () => Promise<{ text: string; structured: Record<string, unknown> }>): Promise<CallToolResult> {
  try {
    const { text, structured } = await body();
    return { content: [{ type: 'text', text }], structuredContent: structured };
  } catch (error) {
    const code = error instanceof McpToolError ? error.code : 'internal';
    const message = error instanceof Error ? error.message : String(error);
    return { content: [{ type: 'text', text: `${code}: ${message}` }], isError: true };
  }
}
