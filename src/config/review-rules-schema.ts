import { z } from 'zod';

const PREFIXED = /^(group|token|slack|teams|email):(.*)$/s;

/** Whether a reviewer written as a string says who it is: `group:`, `token:`, `slack:`, `teams:`, `email:` with a value, or a plain name. */
function reviewerProblem(entry: string): string | null {
  const prefixed = PREFIXED.exec(entry);
  if (!prefixed) return /^[a-z]+:/i.test(entry) && !entry.includes('@') ? `"${entry}" starts with an unknown kind; write group:, token:, slack:, teams: or email:, or a plain sign-in name` : null;
  const [, kind, value] = prefixed as unknown as [string, string, string];
  if (value.trim() === '') return `"${entry}" names no ${kind}`;
  if (kind === 'slack' && !/^[UW][A-Z0-9]{2,}$/.test(value)) return `"${entry}" is not a Slack user id such as slack:U0123ABCD`;
  if (kind === 'email' && !z.email().safeParse(value).success) return `"${entry}" is not an email address such as email:dana@acme.example`;
  return null;
}

const reviewerString = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(320)
  .superRefine((entry, ctx) => {
    const problem = reviewerProblem(entry);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

/** One person reached by several identities: each counts as them, and their votes count once. */
const reviewerPerson = z
  .object({
    name: z.string().trim().min(1).max(200).optional().describe('How the person is named in messages.'),
    email: z.email('must be an email address').optional().describe('Their address: their sign-in name and where review mail reaches them.'),
    slack: z.string().regex(/^[UW][A-Z0-9]{2,}$/, 'must be a Slack user id such as U0123ABCD').optional().describe('Their Slack user id.'),
    teams: z.guid('must be a Microsoft Entra object id').optional().describe('Their Entra object id (Teams).'),
  })
  .strict()
  .refine((p) => p.email !== undefined || p.slack !== undefined || p.teams !== undefined, 'a person needs at least one of email, slack or teams');

export const reviewerEntrySchema = z.union([reviewerString, reviewerPerson]);
export type ReviewerEntry = z.infer<typeof reviewerEntrySchema>;

const topicList = z.array(z.string().trim().min(1, 'must not be empty')).min(1, 'must list at least one (or leave the list out)');

export const reviewRuleSchema = z
  .object({
    name: z.string().trim().min(1, 'must not be empty').max(100).optional().describe('Named in refusals and the audit. Unset: `rule <n>`, its position from 1.'),
    match: z
      .object({
        topics: topicList.optional().describe('Topics the rule covers; unset: any topic.'),
        kinds: topicList.optional().describe('Kinds the rule covers; unset: any kind. With both lists a proposal must match both.'),
      })
      .strict()
      .prefault({})
      .describe('Which proposals the rule covers, by their request\'s topic and kind. The first rule that matches governs.'),
    reviewers: z
      .array(reviewerEntrySchema)
      .min(1, 'must list at least one reviewer')
      .describe('Who may decide: `group:<sign-in group>`, a sign-in name (an address), `token:<name>`, `slack:<user id>`, `teams:<object id>`, `email:<address>`, or one person with several identities `{name, email, slack, teams}`.'),
    approvals: z.number({ error: 'must be a whole number' }).int('must be a whole number').min(1, 'must be at least 1').max(20, 'must be at most 20').default(1).describe('Distinct people who must accept (default 1: one accept decides).'),
    veto: z.boolean().default(true).describe('Default `true`: one rejection rejects; `false`: rejections also need `approvals` people.'),
    require: z.array(reviewerEntrySchema).default([]).describe('At least one accepting vote must come from these (same forms as `reviewers`; they may vote even when not listed there).'),
    auto_accept: z.boolean().default(true).describe('Default `true`; `false`: consumers that auto-accept also wait for this review.'),
  })
  .strict();

export type ReviewRuleEntry = z.infer<typeof reviewRuleSchema>;

/** A rule as the service uses it: its name always set. */
export interface ReviewRule extends Omit<ReviewRuleEntry, 'name'> {
  name: string;
}

/** The rules with their names filled in (`rule <n>` for an unnamed one, from 1). */
export function namedRules(rules: readonly ReviewRuleEntry[]): ReviewRule[] {
  return rules.map((rule, i) => ({ ...rule, name: rule.name ?? `rule ${i + 1}` }));
}

/**
 * A problem found inside `review.rules`, said of the rule it is in: `review.rules.0.approvals` becomes
 * `review.rules[1] (security)` with "approvals …" leading the message. Other paths are left as they are.
 */
export function ruleIssue(raw: unknown, path: readonly PropertyKey[], message: string): { path: PropertyKey[]; message: string } | null {
  if (path[0] !== 'review' || path[1] !== 'rules' || typeof path[2] !== 'number') return null;
  const index = path[2];
  const rules = (raw as { review?: { rules?: unknown } } | null)?.review?.rules;
  const rule = Array.isArray(rules) ? (rules[index] as { name?: unknown } | undefined) : undefined;
  const name = typeof rule?.name === 'string' && rule.name.trim() !== '' ? rule.name.trim() : `rule ${index + 1}`;
  const rest = path.slice(3).map(String).join('.');
  return { path: ['review', `rules[${index + 1}] (${name})`], message: rest === '' ? message : `${rest} ${message}` };
}
