import { z } from 'zod';
import { HOST_ENTRY_PROBLEM, parseHostEntry } from './allowed-hosts.js';
import { authSchema } from './auth-schema.js';
import { durationSchema } from './duration-schema.js';
import { parseDuration } from './durations.js';
import { expertListSchema } from './expert-schema.js';
import { timeZoneSchema } from './time-zone.js';

const DAY_MS = 86_400_000;

/**
 * How long rows are kept (`storage.retention*`): at least a day, so nothing still retried, deduplicated
 * or waited on is pruned, and at most ten years.
 */
const retentionSchema = z.string().max(100).transform((text, ctx) => {
  const ms = parseDuration(text);
  if (ms === null) {
    ctx.addIssue({ code: 'custom', message: `"${text}" is not a duration; write it like 30d, 90d or 52w` });
    return z.NEVER;
  }
  if (ms < DAY_MS || ms > 3650 * DAY_MS) {
    ctx.addIssue({ code: 'custom', message: `"${text}" is outside 1d to 3650d` });
    return z.NEVER;
  }
  return ms;
});

export { durationSchema };

const localTime = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a local time HH:MM (00:00 to 23:59)');

export const quietHoursSchema = z
  .tuple([localTime, localTime])
  .nullable()
  .refine((w) => w === null || w[0] !== w[1], 'start and end must differ');

/** The routing limits: `defaults.*` in the config, `routing_policy` on a request. */
export const policySchema = z
  .object({
    escalation_after: durationSchema,
    give_up_after: durationSchema,
    quiet_hours: quietHoursSchema,
    max_open_asks_per_expert: z.number().int().min(1),
    max_asks_per_expert_per_day: z.number().int().min(1),
  })
  .strict();

export type Policy = z.infer<typeof policySchema>;

/** `defaults.*`: the routing policy every request starts from, and the limits that are not per request. */
export interface Defaults extends Policy {
  /** Requests one consumer may submit per local day (org time zone); null or absent: no limit. */
  max_requests_per_consumer_per_day?: number | null;
  /** How long before an open request gives up its subscribers get `request_expiring` (ms); null or absent: never. */
  warn_before?: number | null;
}

/** The routing policy part of the defaults (what a request's `routing_policy` may override). */
export function policyOf(d: Policy): Policy {
  return {
    escalation_after: d.escalation_after,
    give_up_after: d.give_up_after,
    quiet_hours: d.quiet_hours,
    max_open_asks_per_expert: d.max_open_asks_per_expert,
    max_asks_per_expert_per_day: d.max_asks_per_expert_per_day,
  };
}

/**
 * The answer library: when an entry needs checking again (`verify_after`) and which consumers see
 * which entries (`share`). `reuse`, `min_score` and `llm_min_score` govern offering entries at submit.
 */
export const librarySchema = z
  .object({
    verify_after: durationSchema.refine((ms) => ms >= 3_600_000, 'must be at least 1h').prefault('90d'),
    share: z.enum(['all', 'same_consumer']).default('all'),
    reuse: z.enum(['offer', 'off']).default('offer'),
    min_score: z.number().min(0).max(1).default(0.6),
    llm_min_score: z.number().min(0).max(1).default(0.3),
  })
  .strict()
  .prefault({});

export type LibrarySettings = z.infer<typeof librarySchema>;

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name');

export const configSchema = z
  .object({
    org: z
      .object({
        name: z.string().trim().min(1, 'must not be empty'),
        timezone: timeZoneSchema.default('UTC'),
        /** A page telling experts how expertq treats their time, linked at the end of every ask. */
        expert_guide_url: z.string().url('must be a URL').optional(),
      })
      .strict(),
    llm: z
      .object({
        model: z.string().min(1).optional(),
        api_key_env: envName.optional(),
        base_url: z.url().optional(),
        // Bounds every call and how long a first ask waits for its drafted question.
        timeout: durationSchema.refine((ms) => ms >= 100, 'must be at least 100ms').prefault('30s'),
        // LLM calls in flight at once: an outage or a slow model holds at most this many.
        concurrency: z.number().int().min(1).max(64).default(4),
      })
      .strict()
      .nullable()
      .default(null),
    chat: z
      .object({
        bot_token_env: envName.optional(),
        signing_secret_env: envName.optional(),
        app_token_env: envName.optional(),
        api_url: z.url({ protocol: /^https?$/ }).default('https://slack.com/api/'),
        review_channel: z.string().regex(/^[CG][A-Z0-9]{2,}$/, 'must be a Slack channel id such as C0123ABCD').optional(),
        reviewers: z.array(z.string().regex(/^[UW][A-Z0-9]{2,}$/, 'must be a Slack user id such as U0123ABCD')).default([]),
        // Asks wait out each expert's do-not-disturb and away status in Slack (scopes dnd:read, users.profile:read).
        use_slack_status: z.boolean().default(false),
        away_status_emoji: z.array(z.string().regex(/^:[^:\s]+:$/, 'must be an emoji code such as :palm_tree:')).default([':palm_tree:', ':airplane:', ':face_with_thermometer:']),
        away_status_pattern: z
          .string()
          .min(1)
          .refine((p) => {
            try {
              new RegExp(p, 'i');
              return true;
            } catch {
              return false;
            }
          }, 'must be a regular expression')
          .default('out of office|ooo|vacation|holiday|on leave'),
      })
      .strict()
      .nullable()
      .default(null),
    server: z
      .object({
        port: z.number().int().min(0).max(65535).default(8776),
        host: z.string().min(1).default('127.0.0.1'),
        api_token_env: envName.default('SERVICE_API_TOKEN'),
        body_limit: z.number().int().min(1024).default(1_048_576),
        tick_ms: z.number().int().min(10).default(1000),
        allow_private_webhooks: z.boolean().default(false),
        allowed_hosts: z.array(z.string().trim().refine((entry) => parseHostEntry(entry) !== null, HOST_ENTRY_PROBLEM)).default([]),
        public_metrics: z.boolean().default(false),
        // Where browsers reach the server (behind a proxy: the proxy's URL); sign-in needs it.
        public_url: z.url({ protocol: /^https?$/ }).refine((u) => { const url = new URL(u); return url.pathname === '/' && !url.search && !url.hash; }, 'must be an origin such as https://expertq.example.com, with no path').optional(),
        tokens: z
          .array(
            z
              .object({
                name: z.string().trim().min(1).max(100),
                token_env: envName,
                role: z.enum(['consumer', 'reviewer', 'admin']),
              })
              .strict(),
          )
          .default([])
          .superRefine((tokens, ctx) => {
            const seen = { name: new Set<string>(), token_env: new Set<string>() };
            tokens.forEach((t, i) => {
              for (const key of ['name', 'token_env'] as const) {
                if (seen[key].has(t[key])) ctx.addIssue({ code: 'custom', path: [i, key], message: `"${t[key]}" is used by another token` });
                seen[key].add(t[key]);
              }
            });
          }),
      })
      .strict()
      .prefault({}),
    storage: z
      .object({
        path: z.string().min(1).optional(),
        url_env: envName.optional(),
        pool_size: z.number().int().min(1).max(500).default(10),
        retention: retentionSchema.nullable().default(null),
        retention_requests: retentionSchema.nullable().default(null),
      })
      .strict()
      .prefault({}),
    defaults: policySchema
      .partial()
      .extend({ max_requests_per_consumer_per_day: z.number().int().min(1).optional(), warn_before: durationSchema.optional() })
      .strict()
      .prefault({})
      .transform((d): Defaults => ({
        escalation_after: d.escalation_after ?? 2 * 3_600_000,
        give_up_after: d.give_up_after ?? 24 * 3_600_000,
        quiet_hours: d.quiet_hours ?? null,
        max_open_asks_per_expert: d.max_open_asks_per_expert ?? 3,
        max_asks_per_expert_per_day: d.max_asks_per_expert_per_day ?? 5,
        max_requests_per_consumer_per_day: d.max_requests_per_consumer_per_day ?? null,
        warn_before: d.warn_before ?? null,
      })),
    review: z
      .object({ remind_after: durationSchema.default(3_600_000) })
      .strict()
      .prefault({}),
    auth: authSchema,
    library: librarySchema,
    experts: expertListSchema.default([]),
    topics: z
      .record(z.string(), z.object({ fallback: z.string().min(1).nullable().default(null) }).strict())
      .default({}),
  })
  .strict()
  .superRefine((config, ctx) => {
    if (config.llm?.model && !config.llm.api_key_env && !config.llm.base_url) {
      ctx.addIssue({
        code: 'custom',
        path: ['llm', 'api_key_env'],
        message: 'is required with llm.model unless llm.base_url points at an endpoint that needs no key (Ollama, vLLM)',
      });
    }
    if (config.storage.path !== undefined && config.storage.url_env !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['storage', 'url_env'],
        message: 'cannot be set with storage.path: choose SQLite (path) or PostgreSQL (url_env)',
      });
    }
    if (config.auth.oidc) {
      if (!config.auth.session_secret_env) {
        ctx.addIssue({ code: 'custom', path: ['auth', 'session_secret_env'], message: 'is required with auth.oidc: name the variable holding the key that encrypts sign-in cookies' });
      }
      if (!config.server.public_url) {
        ctx.addIssue({ code: 'custom', path: ['server', 'public_url'], message: 'is required with auth.oidc: the URL browsers use to reach expertq (redirects and the Origin check need it)' });
      }
    }
    const ids = new Set(config.experts.map((e) => e.id));
    for (const [topic, entry] of Object.entries(config.topics)) {
      if (entry.fallback !== null && !ids.has(entry.fallback)) {
        ctx.addIssue({ code: 'custom', path: ['topics', topic, 'fallback'], message: `unknown expert id "${entry.fallback}"` });
      }
    }
  });

export type ConfigFile = z.infer<typeof configSchema>;
