/**
 * The CLI's own errors are the API client's error class: `main.ts` reports both alike, with their
 * exit code, and the client stays usable outside the CLI (the stdio MCP server).
 */
export { ClientError as CliError } from '../client/client.js';
