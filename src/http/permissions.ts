/** Roles of scoped tokens (`server.tokens`); the main token is `admin`. */
export type Role = 'consumer' | 'reviewer' | 'admin';

/**
 * What each role may call, by route (method and path under `/api/v1`). Admin may call everything.
 * A consumer submits, reads and cancels its own requests and registers itself; a reviewer reads the
 * queue, requests, experts and audit and decides. Which requests are a consumer's own is checked by
 * the routes (a consumer sees only requests it submitted or is subscribed to).
 */
const ALLOWED: Record<Exclude<Role, 'admin'>, ReadonlySet<string>> = {
  consumer: new Set([
    'GET /me',
    'POST /requests',
    'GET /requests',
    'GET /requests/:id',
    'GET /requests/:id/wait',
    'POST /requests/:id/cancel',
    'POST /consumers',
    'DELETE /consumers/:id',
    'GET /kinds',
    'GET /topics',
    // MCP: the endpoint itself; each tool checks the route it stands for.
    'POST /mcp',
    'GET /mcp',
    'DELETE /mcp',
  ]),
  reviewer: new Set([
    'GET /me',
    'GET /requests',
    'GET /requests/:id',
    'GET /requests/:id/wait',
    'GET /proposals',
    'GET /proposals/:id',
    'POST /proposals/:id/accept',
    'POST /proposals/:id/reject',
    'POST /proposals/:id/return',
    'GET /queue',
    'GET /queue/events',
    'GET /experts',
    'GET /audit',
    'GET /kinds',
    'GET /topics',
    'POST /mcp',
    'GET /mcp',
    'DELETE /mcp',
  ]),
};

export function mayCall(role: Role, method: string, route: string): boolean {
  if (role === 'admin') return true;
  const verb = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
  return ALLOWED[role].has(`${verb} ${route.replace(/^\/api\/v1/, '')}`);
}

/** The routes a role may call, for `GET /me` (clients show what a token may not do). */
export function allowedRoutes(role: Role): string[] | '*' {
  return role === 'admin' ? '*' : [...ALLOWED[role]];
}
