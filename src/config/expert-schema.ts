import { z } from 'zod';
import { EXPERT_CHANNELS, SLACK_USER_ID } from '../domain/channels.js';
import { expertAvailabilityFields } from './expert-availability-schema.js';

/** One registry entry as written in `service.yaml` and sent to `PUT /api/v1/experts`. */
export const expertEntrySchema = z
  .object({
    id: z.string().trim().min(1, 'must not be empty').max(200).describe('How expertq names the expert (requests, audit, the API). An id that is a Slack user id (`U…`) is also their Slack address when `slack` is unset.'),
    name: z.string().trim().min(1, 'must not be empty').max(200).describe('The expert\'s name, as consumers and reviewers see it.'),
    topics: z.array(z.string().trim().min(1, 'must not be empty').max(200)).min(1, 'needs at least one topic').describe('Topics the expert answers; matched exactly after lowercasing and collapsing whitespace, else by word overlap.'),
    slack: z.string().regex(SLACK_USER_ID, 'must be a Slack user id such as U0123ABCD').optional().describe('The expert\'s Slack user id (`U…`/`W…`).'),
    email: z.email('must be an email address such as dana@example.com').max(254).optional().describe('The expert\'s email address.'),
    teams: z.guid('must be a Microsoft Entra object id such as 00000000-0000-0000-0000-000000000000').optional().describe('The expert\'s Microsoft Entra object id (for Teams).'),
    channels: z
      .array(z.enum(EXPERT_CHANNELS))
      .min(1, 'needs at least one channel')
      .refine((list) => new Set(list).size === list.length, 'names a channel twice')
      .optional()
      .describe('Where the expert is asked, in order of preference (`slack`, `teams`, `email`); a permanent failure on one moves the question to the next. Unset: every channel the service runs and the expert has an address on, in the order slack, teams, email.'),
    escalation_to: z.string().min(1).nullable().optional().describe('Expert id asked next when this expert lets `escalation_after` pass, skips or mutes.'),
    ...expertAvailabilityFields,
  })
  .strict();

export type ExpertEntry = z.infer<typeof expertEntrySchema>;

/**
 * The whole registry. Checked as one piece because its rules span entries: ids are unique, and
 * `escalation_to` names another expert of the same array without ever leading back to where it began.
 */
export const expertListSchema = z.array(expertEntrySchema).superRefine((experts, ctx) => {
  const index = new Map<string, number>();
  experts.forEach((expert, i) => {
    if (index.has(expert.id)) {
      ctx.addIssue({ code: 'custom', path: [i, 'id'], message: `duplicate expert id "${expert.id}"` });
    } else {
      index.set(expert.id, i);
    }
  });
  experts.forEach((expert, i) => {
    const target = expert.escalation_to;
    if (target == null) return;
    if (target === expert.id) {
      ctx.addIssue({ code: 'custom', path: [i, 'escalation_to'], message: 'an expert cannot escalate to itself' });
    } else if (!index.has(target)) {
      ctx.addIssue({ code: 'custom', path: [i, 'escalation_to'], message: `unknown expert id "${target}"` });
    }
  });
  // One address is one person: a reply from it must name one expert.
  const owners = new Map<string, number>();
  experts.forEach((expert, i) => {
    for (const channel of ['slack', 'email', 'teams'] as const) {
      const address = expert[channel];
      if (address === undefined) continue;
      const key = `${channel} ${address.toLowerCase()}`;
      const first = owners.get(key);
      if (first === undefined) owners.set(key, i);
      else ctx.addIssue({ code: 'custom', path: [i, channel], message: `"${address}" is also expert "${experts[first]!.id}"'s ${channel} address` });
    }
  });
  const cycle = findEscalationCycle(experts);
  if (cycle) {
    ctx.addIssue({
      code: 'custom',
      path: [index.get(cycle[0]!) ?? 0, 'escalation_to'],
      message: `escalation cycle: ${cycle.join(' → ')}`,
    });
  }
});

/** Returns the first escalation cycle found (ids in order, first repeated at the end), or null. */
export function findEscalationCycle(experts: readonly ExpertEntry[]): string[] | null {
  const next = new Map(experts.map((e) => [e.id, e.escalation_to ?? null]));
  for (const start of next.keys()) {
    const path: string[] = [];
    let current: string | null | undefined = start;
    while (current != null && next.has(current)) {
      const at = path.indexOf(current);
      if (at >= 0) return [...path.slice(at), current];
      path.push(current);
      current = next.get(current);
    }
  }
  return null;
}
