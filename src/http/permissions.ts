import { mayPerform, type Operation, type Role } from '../service/sessions/index.js';

export type { Role };

/** The operation each route (method and path under `/api/v1`) performs; a route not listed is `administer`. */
const ROUTE_OPERATIONS: Readonly<Record<string, Operation>> = {
  'GET /me': 'whoami',
  'POST /requests': 'submit_request',
  'GET /requests': 'list_requests',
  'GET /requests/:id': 'read_request',
  'GET /requests/:id/wait': 'read_request',
  'POST /requests/:id/cancel': 'cancel_request',
  'POST /consumers': 'register_consumer',
  'DELETE /consumers/:id': 'register_consumer',
  'GET /proposals': 'read_queue',
  'GET /proposals/:id': 'read_queue',
  'POST /proposals/:id/accept': 'decide',
  'POST /proposals/:id/reject': 'decide',
  'POST /proposals/:id/return': 'decide',
  'GET /queue': 'read_queue',
  'GET /queue/events': 'read_queue',
  'GET /experts': 'read_experts',
  'GET /audit': 'read_audit',
  'GET /kinds': 'read_kinds',
  'GET /topics': 'read_topics',
  'GET /answers': 'read_answers',
  'GET /answers/stats': 'read_answer_stats',
  'GET /insights': 'read_insights',
  'GET /answers/:id': 'read_answers',
  'POST /answers/:id/retire': 'retire_answer',
  // MCP: the endpoint itself; each tool checks the operation it performs.
  'POST /mcp': 'use_mcp',
  'GET /mcp': 'use_mcp',
  'DELETE /mcp': 'use_mcp',
};

const key = (method: string, route: string) => `${method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase()} ${route.replace(/^\/api\/v1/, '')}`;

/** Whether a role may call a route. */
export function mayCall(role: Role, method: string, route: string): boolean {
  return mayPerform(role, ROUTE_OPERATIONS[key(method, route)] ?? 'administer');
}

/** The routes a role may call, for `GET /me` (clients show what a token may not do). */
export function allowedRoutes(role: Role): string[] | '*' {
  return role === 'admin' ? '*' : Object.keys(ROUTE_OPERATIONS).filter((route) => mayPerform(role, ROUTE_OPERATIONS[route]!));
}
