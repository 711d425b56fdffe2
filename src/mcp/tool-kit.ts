import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { mayCall, type Role } from '../http/permissions.js';
import { McpToolError } from './backend.js';

/** The API operation each tool performs: a tool is listed only for roles that may call it. */
const TOOL_ROUTES: Record<string, readonly [string, string]> = {
  ask_expert: ['POST', '/requests'],
  wait_for_answer: ['GET', '/requests/:id/wait'],
  get_request: ['GET', '/requests/:id'],
  cancel_request: ['POST', '/requests/:id/cancel'],
  list_topics: ['GET', '/topics'],
  list_experts: ['GET', '/experts'],
  list_pending: ['GET', '/queue'],
  accept_proposal: ['POST', '/proposals/:id/accept'],
  reject_proposal: ['POST', '/proposals/:id/reject'],
  return_proposal: ['POST', '/proposals/:id/return'],
};

/** `server.registerTool` for one caller: a tool is registered (listed) only when the role may perform its operation. */
export function toolRegistrar(server: McpServer, role: Role): McpServer['registerTool'] {
  return ((name: string, config: never, handler: never) => {
    const [method, route] = TOOL_ROUTES[name]!;
    return mayCall(role, method, route) ? server.registerTool(name, config, handler) : undefined;
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
