import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { packageVersion } from '../package-info.js';
import type { McpBackend } from './backend.js';
import { registerTools, type ToolOptions } from './tools.js';

const INSTRUCTIONS =
  'expertq asks named human experts and returns human-reviewed answers. list_topics shows which topics experts take. ' +
  'Call ask_expert once per question: it returns a request_id at once. Then call wait_for_answer with that request_id, again and again while done is false (each call returns within 50 s). ' +
  'Never call ask_expert again for the same question: a retry attaches to the same request. An answer is usable only when its status is accepted.';

/** An MCP server with expertq's tools over a backend (the service in process, or the HTTP API). */
export function createMcpServer(backend: McpBackend, options: ToolOptions = {}): McpServer {
  const server = new McpServer({ name: 'expertq', version: packageVersion() }, { instructions: INSTRUCTIONS });
  registerTools(server, backend, options);
  return server;
}
