import type { FastifyPluginAsync } from 'fastify';
import { AppError } from '../../errors.js';
import type { ExpertqService } from '../../service/expertq-service.js';

export interface HealthOptions {
  service: ExpertqService;
  /** `server.tick_ms`: the scheduler counts as running while it ticked within a few of these. */
  tickMs: number;
  /** Whether this process runs the scheduler timer (the server does; an app built for tests may not). */
  schedulerRunning: () => boolean;
}

/** Each readiness check: null when it passes, else what is wrong. */
export async function readinessProblems(o: HealthOptions): Promise<Record<string, string | null>> {
  const { service } = o;
  let database: string | null = null;
  try {
    await service.store.checkWritable();
  } catch (error) {
    database = `the database cannot be written: ${(error as Error).message}`;
  }
  const staleAfter = Math.max(5 * o.tickMs, 5_000);
  const last = service.lastTickAt;
  const scheduler = !o.schedulerRunning()
    ? null
    : last === null
      ? 'the scheduler has not ticked yet'
      : Date.now() - last > staleAfter
        ? `the scheduler last ticked ${Math.round((Date.now() - last) / 1000)} s ago`
        : null;
  return {
    database,
    transport: service.transport.notReady?.() ?? null,
    dispatchers: service.messages.stopped || service.deliveries.stopped ? 'the outbox dispatchers are stopped (shutting down)' : null,
    scheduler,
  };
}

/**
 * `GET /healthz` (the process answers, and which channels it runs) and `GET /readyz` (it can do its work: the database takes a
 * write, the transport is connected, the outbox dispatchers and the scheduler run; 503 naming the
 * failing check otherwise). Public: a load balancer or systemd needs no token, and neither says more
 * than which check failed.
 */
export const healthRoutes: FastifyPluginAsync<HealthOptions> = async (app, options) => {
  // The channels this process runs, so an operator sees at a glance that email (say) is on.
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok', channels: [...options.service.channels.running] }));
  app.get('/readyz', { schema: { hide: true } }, async () => {
    const checks = await readinessProblems(options);
    const failing = Object.entries(checks).filter(([, problem]) => problem !== null) as Array<[string, string]>;
    if (failing.length > 0) {
      throw new AppError('unavailable', `Not ready: ${failing.map(([check, problem]) => `${check}: ${problem}`).join('; ')}.`, failing.map(([path, message]) => ({ path, message })));
    }
    return { status: 'ready', checks: Object.fromEntries(Object.keys(checks).map((k) => [k, 'ok'])) };
  });
};
