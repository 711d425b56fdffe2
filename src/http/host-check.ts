import type { FastifyReply, FastifyRequest } from 'fastify';
import { parseHostEntry, splitHost, type HostAndPort } from '../config/allowed-hosts.js';
import { forbidden } from '../errors.js';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
/** Probes send a pod or instance address as Host: they answer whatever it is, and say nothing secret. */
const UNCHECKED_ROUTES = new Set(['/healthz', '/readyz']);

export interface HostPolicyOptions {
  /** `server.allowed_hosts`: names (any port) or `name:port` (that port only). */
  allowedHosts?: readonly string[];
  /** `server.public_url`: its host is always allowed. */
  publicUrl?: string | undefined;
  /** Authentication is off: the check runs even with no list, so only loopback names answer. */
  authOff: boolean;
}

export interface HostPolicy {
  /** Whether the app checks `Host` at all (always with authentication off; else when a list is set). */
  enforced: boolean;
  allows(host: string | undefined): boolean;
}

/**
 * Which `Host` headers the server answers, against DNS rebinding: a web page whose name resolves to
 * 127.0.0.1 reaches the server with its own name in `Host`, so only names the operator chose answer.
 */
export function hostPolicy(options: HostPolicyOptions): HostPolicy {
  const listed: HostAndPort[] = (options.allowedHosts ?? []).map((entry) => parseHostEntry(entry)).filter((h) => h !== null);
  if (options.publicUrl) listed.push({ name: new URL(options.publicUrl).hostname, port: null });
  return {
    enforced: options.authOff || (options.allowedHosts ?? []).length > 0,
    allows(host) {
      const sent = host === undefined ? null : splitHost(host);
      if (!sent) return false;
      if (LOOPBACK.has(sent.name)) return true;
      return listed.some((entry) => entry.name === sent.name && (entry.port === null || entry.port === sent.port));
    },
  };
}

/** The `onRequest` hook that refuses a `Host` the policy does not allow (403), on every route but the probes. */
export function hostCheck(policy: HostPolicy) {
  return async (request: FastifyRequest, _reply: FastifyReply) => {
    if (!policy.enforced || UNCHECKED_ROUTES.has(request.routeOptions.url ?? '')) return;
    const host = request.headers.host;
    if (policy.allows(host)) return;
    throw forbidden(
      `This server answers only requests addressed to localhost, 127.0.0.1, [::1] or a name in server.allowed_hosts; the Host header ${host === undefined ? 'was missing' : `"${host}" is not one of them`}. If clients reach expertq by that name (a reverse proxy, a container or machine name), add it to server.allowed_hosts in the config file.`,
    );
  };
}
