import { z } from 'zod';
import { HOST_ENTRY_PROBLEM, parseHostEntry } from './allowed-hosts.js';
import { authSchema } from './auth-schema.js';
import { durationSchema } from './duration-schema.js';
import { emailSchema } from './email-schema.js';
import { teamsSchema } from './teams-schema.js';
import { reviewRuleSchema } from './review-rules-schema.js';
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
    escalation_after: durationSchema.describe('Wait before the question passes to the expert\'s `escalation_to`.'),
    give_up_after: durationSchema.describe('Total wait before the request fails with `timeout`; may be shorter than `escalation_after`, and the request then gives up before anyone else is asked.'),
    quiet_hours: quietHoursSchema.describe('A window such as `["22:00", "07:00"]` in which no message is sent (local time, may wrap midnight); `null`: none.'),
    max_open_asks_per_expert: z.number().int().min(1).describe('Hard cap on unanswered asks per expert.'),
    max_asks_per_expert_per_day: z.number().int().min(1).describe('Hard cap on asks per expert per local day.'),
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
    verify_after: durationSchema.refine((ms) => ms >= 3_600_000, 'must be at least 1h').prefault('90d').describe('An accepted answer kept in the [answer library](library.md) reads `stale` once its `verified_at` is older than this (at least `1h`).'),
    share: z.enum(['all', 'same_consumer']).default('all').describe('Which library entries a consumer token sees: `all` active entries, or `same_consumer`: only those answering its own requests. Reviewers and admins see every entry.'),
    reuse: z.enum(['offer', 'off']).default('offer').describe('`offer`: a new question close enough to an accepted answer of the same topic and kind gets that answer as a pending proposal, and no expert is asked ([reuse](library.md#reuse-answering-a-new-question-from-the-library)); `off`: always ask. A request may choose for itself with `routing_policy.reuse`.'),
    min_score: z.number().min(0).max(1).default(0.6).describe('How alike (0..1, share of words in common) a question must be to an entry\'s to be offered it; raise it if reviewers send many back.'),
    llm_min_score: z.number().min(0).max(1).default(0.3).describe('With an LLM: a new question whose best entry scores from this up to `min_score` waits (no expert asked) while the model judges whether that entry answers it; reused when it says yes with confidence ≥ 0.8, else an expert is asked ([with an LLM](library.md#with-an-llm)).'),
  })
  .strict()
  .prefault({});

export type LibrarySettings = z.infer<typeof librarySchema>;

import { envName, patternSchema } from './setting-schemas.js';

export const configSchema = z
  .object({
    org: z
      .object({
        name: z.string().trim().min(1, 'must not be empty').describe('Organization name in messages to experts.'),
        timezone: timeZoneSchema.default('UTC').describe('IANA zone for quiet hours and the daily ask count (days start at local midnight).'),
        /** A page telling experts how expertq treats their time, linked at the end of every ask. */
        expert_guide_url: z.string().url('must be a URL').optional().describe('A page telling experts how expertq treats their time (publish the "For experts" part of [availability.md](availability.md#for-experts), or your own); linked at the end of every ask: "How expertq treats your time: <url>".'),
      })
      .strict(),
    llm: z
      .object({
        model: z.string().min(1).optional().describe('Optional OpenAI-compatible model: questions are drafted and answers structured ([llm.md](llm.md)). Unset: no LLM.'),
        api_key_env: envName.optional().describe('Variable holding the provider key; required unless `llm.base_url` is set (local endpoints need none). Unset variable: start-up error naming it.'),
        base_url: z.url().optional().describe('Any OpenAI-compatible endpoint (Azure v1, Ollama, vLLM, LiteLLM). Unset: `https://api.openai.com/v1`.'),
        // Bounds every call and how long a first ask waits for its drafted question.
        timeout: durationSchema.refine((ms) => ms >= 100, 'must be at least 100ms').prefault('30s').describe('Bounds each LLM call, and how long a new request waits for its drafted question or for the judgement of a library match. A request whose draft could not be ready in time is asked with the raw question at once ([llm.md](llm.md#the-checks-and-every-fallback)).'),
        // LLM calls in flight at once: an outage or a slow model holds at most this many.
        concurrency: z.number().int().min(1).max(64).default(4).describe('LLM calls in flight at once.'),
      })
      .strict()
      .nullable()
      .default(null),
    chat: z
      .object({
        bot_token_env: envName.optional().describe('Slack transport (`serve --transport chat`): variable with the bot token `xoxb-…`. See [channels.md](channels.md).'),
        signing_secret_env: envName.optional().describe('Variable with the signing secret: HTTP mode, events at `POST /api/v1/chat/events`. This or `app_token_env` is needed.'),
        app_token_env: envName.optional().describe('Variable with the app-level token `xapp-…`: Socket Mode, no public URL (recommended).'),
        api_url: z.url({ protocol: /^https?$/ }).default('https://slack.com/api/').describe('Slack Web API base URL (GovSlack: `https://slack-gov.com/api/`).'),
        review_channel: z.string().regex(/^[CG][A-Z0-9]{2,}$/, 'must be a Slack channel id such as C0123ABCD').optional().describe('Channel id (`C…`) where pending proposals are posted with Accept / Edit / Reject / Send back ([slack.md](slack.md#the-review-channel)).'),
        reviewers: z.array(z.string().regex(/^[UW][A-Z0-9]{2,}$/, 'must be a Slack user id such as U0123ABCD')).default([]).describe('Slack user ids allowed to decide from the review channel. Empty: nobody decides from Slack.'),
        // Asks wait out each expert's do-not-disturb and away status in Slack (scopes dnd:read, users.profile:read).
        use_slack_status: z.boolean().default(false).describe('Asks wait out each expert\'s Slack do-not-disturb and away status (scopes `dnd:read`, `users.profile:read`; [slack.md](slack.md#slack-status-and-do-not-disturb)).'),
        away_status_emoji: z.array(z.string().regex(/^:[^:\s]+:$/, 'must be an emoji code such as :palm_tree:')).default([':palm_tree:', ':airplane:', ':face_with_thermometer:']).describe('Slack status emoji that mean away (with an expiry: away until then).'),
        away_status_pattern: patternSchema
          .default('out of office|ooo|vacation|holiday|on leave')
          .describe('Slack status text that means away: a regular expression, any case.'),
      })
      .strict()
      .nullable()
      .default(null),
    email: emailSchema.nullable().default(null),
    teams: teamsSchema.nullable().default(null),
    server: z
      .object({
        port: z.number().int().min(0).max(65535).default(8776).describe('Where the API and UI listen; `PORT` or `serve --port` override it.'),
        host: z.string().min(1).default('127.0.0.1').describe('Address the server binds to (behind a proxy on another machine: see [deployment.md](deployment.md#behind-a-reverse-proxy-with-tls)).'),
        api_token_env: envName.default('SERVICE_API_TOKEN').describe('Variable holding the static bearer token (role `admin`). Unset, with no `server.tokens` and no `auth.oidc`: no auth (warned at start-up).'),
        body_limit: z.number().int().min(1024).default(1_048_576).describe('Largest request body in bytes (larger: 413).'),
        tick_ms: z.number().int().min(10).default(1000).describe('How often due work (message retries, deadlines) is looked for, in milliseconds.'),
        work_lease: durationSchema.refine((ms) => ms >= 2_000 && ms <= 25_000, 'must be between 2s and 25s').prefault('15s').describe('How long this process\'s claim on a webhook delivery, a message to an expert or an LLM job lasts; renewed every third of it while the work runs. Work a killed process held is taken up (by a restarted or another instance) once its claim runs out: shorter takes it up sooner, longer lets a stalled process keep its work longer. `2s` to `25s`.'),
        allow_private_webhooks: z.boolean().default(false).describe('Allow webhook URLs on private/loopback addresses.'),
        allowed_hosts: z.array(z.string().trim().refine((entry) => parseHostEntry(entry) !== null, HOST_ENTRY_PROBLEM)).default([]).describe('Names clients reach expertq by, besides `localhost`, `127.0.0.1` and `[::1]` (always answered, on any port) and `server.public_url`\'s host: `[expertq.example.com, "10.0.0.5:8776"]`. A bare name is answered on any port, `name:port` on that port only. With authentication off the server answers no other `Host` (403 `forbidden`, so a web page cannot reach it by DNS rebinding); with authentication on, setting the list turns the same check on. `/healthz` and `/readyz` answer any `Host`.'),
        public_metrics: z.boolean().default(false).describe('Serve `GET /metrics` without the bearer token (by default it needs an admin token).'),
        // Where browsers reach the server (behind a proxy: the proxy's URL); sign-in needs it.
        public_url: z.url({ protocol: /^https?$/ }).refine((u) => { const url = new URL(u); return url.pathname === '/' && !url.search && !url.hash; }, 'must be an origin such as https://expertq.example.com, with no path').optional().describe('The URL browsers use to reach expertq (behind a proxy: the proxy\'s), an origin such as `https://expertq.example.com`. Required with `auth.oidc`: the sign-in redirect and the `Origin` check use it.'),
        tokens: z
          .array(
            z
              .object({
                name: z.string().trim().min(1).max(100).describe('Who the token is: recorded as `decided_by`, and a consumer token submits as this consumer.'),
                token_env: envName.describe('Variable holding the token\'s value; unset stops start-up, naming it.'),
                role: z.enum(['consumer', 'reviewer', 'admin']).describe('What the token may call ([Tokens and roles](configuration.md#tokens-and-roles)).'),
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
          })
          .describe('Scoped tokens: `[{name, token_env, role}]`, role `consumer`, `reviewer` or `admin`. See [Tokens and roles](configuration.md#tokens-and-roles).'),
      })
      .strict()
      .prefault({}),
    storage: z
      .object({
        path: z.string().min(1).optional().describe('SQLite database, relative to the config file. Unset (and no `url_env`): `expertq.db` beside the config.'),
        url_env: envName.optional().describe('Name of the environment variable holding a `postgres://` URL: with it, expertq uses that PostgreSQL database instead of SQLite, and several instances may share it. Setting both `path` and `url_env` is a config error; an unset variable or an unreachable database stops `serve` with one line.'),
        pool_size: z.number().int().min(1).max(500).default(10).describe('PostgreSQL connections per instance.'),
        retention: retentionSchema.nullable().default(null).describe('e.g. `90d`: delivered deliveries, sent messages, event bodies (and Slack event ids, finished LLM jobs) older than this are pruned hourly in small batches. Unset: nothing is pruned.'),
        retention_requests: retentionSchema.nullable().default(null).describe('e.g. `730d`: also finished requests last changed before this, with their proposals, asks and audit rows. Unset: requests are kept forever. Both `1d`–`3650d` ([operations.md](operations.md#retention)).'),
      })
      .strict()
      .prefault({}),
    defaults: policySchema
      .partial()
      .extend({ max_requests_per_consumer_per_day: z.number().int().min(1).optional().describe('New requests one consumer may submit per day, counted from midnight in `org.timezone`; beyond it `POST /requests` answers 429 `rate_limited` with `Retry-After`. A consumer\'s own `max_requests_per_day` replaces it. Unset: no limit.'), warn_before: durationSchema.optional().describe('e.g. `2h`: that long before an open request gives up, its subscribers get one `request_expiring {gives_up_at, waiting}` event ([webhooks.md](webhooks.md#request_expiring-decide-whether-to-keep-waiting)). Applies to requests submitted while it is set. Unset: no warning.') })
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
      .object({
        remind_after: durationSchema.default(3_600_000).describe('When the oldest pending proposal has waited this long: one reminder (review channel, else a warning log line), at most once per period.'),
        rules: z.array(reviewRuleSchema).default([]).describe('Who reviews what, and how many must agree ([review.md](review.md#review-rules)): the first rule whose `match` fits a proposal\'s topic and kind governs it; a proposal no rule covers is decided by any reviewer, one vote, as without rules.'),
        admins_decide: z.boolean().default(true).describe('Admins may decide proposals a rule covers (one vote like any other); `false`: only the rule\'s reviewers may.'),
      })
      .strict()
      .prefault({}),
    auth: authSchema,
    library: librarySchema,
    experts: expertListSchema.default([]).describe('`id` is the chat user id (any string on the console). Reloaded while running when the file changes or on `SIGHUP`; an invalid section is logged and the running experts kept. Every other key needs a restart (a change is logged as a warning).'),
    topics: z
      .record(z.string(), z.object({ fallback: z.string().min(1).nullable().default(null).describe('Expert id asked when nothing matches that topic.') }).strict())
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
    if (config.chat?.review_channel && config.teams?.review_channel) {
      ctx.addIssue({ code: 'custom', path: ['teams', 'review_channel'], message: 'cannot be set with chat.review_channel: review cards go to one review channel, in Slack or in Teams' });
    }
    const ids = new Set(config.experts.map((e) => e.id));
    for (const [topic, entry] of Object.entries(config.topics)) {
      if (entry.fallback !== null && !ids.has(entry.fallback)) {
        ctx.addIssue({ code: 'custom', path: ['topics', topic, 'fallback'], message: `unknown expert id "${entry.fallback}"` });
      }
    }
  });

export type ConfigFile = z.infer<typeof configSchema>;
