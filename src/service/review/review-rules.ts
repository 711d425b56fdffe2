import type { ReviewerEntry, ReviewRule } from '../../config/review-rules-schema.js';
import type { ExpertRegistry } from '../../core/expert-registry.js';
import { normalizeTopic } from '../../core/normalize-topic.js';
import { forbidden } from '../../errors.js';
import type { ReviewSettings } from '../engine/index.js';

export type { ReviewRule };

/**
 * Who decides, as review rules see them: the name a decision records, each identity they proved (in
 * the forms reviewer entries use: `group:…`, `token:…`, `slack:…`, `teams:…`, `email:…`, `name:…`),
 * and whether they are an admin.
 */
export interface Decider {
  by: string;
  identities: readonly string[];
  admin: boolean;
}

/**
 * One identity in the form rules compare: `slack:`, `group:` and `token:` as written; `email:`, `teams:`
 * and a plain sign-in name in lower case, a plain name that is an address being the same as `email:`.
 */
export function identityOf(entry: string): string {
  const text = entry.trim();
  const prefixed = /^(group|token|slack|teams|email):(.*)$/s.exec(text);
  if (prefixed) {
    const [, kind, value] = prefixed as unknown as [string, string, string];
    return kind === 'email' || kind === 'teams' ? `${kind}:${value.trim().toLowerCase()}` : `${kind}:${value.trim()}`;
  }
  return text.includes('@') ? `email:${text.toLowerCase()}` : `name:${text.toLowerCase()}`;
}

/** The identities one reviewer entry stands for: one for a string, each of a person's. */
export function entryIdentities(entry: ReviewerEntry): string[] {
  if (typeof entry === 'string') return [identityOf(entry)];
  return [
    ...(entry.email !== undefined ? [`email:${entry.email.toLowerCase()}`] : []),
    ...(entry.slack !== undefined ? [`slack:${entry.slack}`] : []),
    ...(entry.teams !== undefined ? [`teams:${entry.teams.toLowerCase()}`] : []),
  ];
}

/** How an entry is said in messages. */
export function entryText(entry: ReviewerEntry): string {
  if (typeof entry === 'string') return entry;
  return entry.name ?? entry.email ?? (entry.slack !== undefined ? `slack:${entry.slack}` : `teams:${entry.teams}`);
}

/** A decider who is in the service itself (the SDK, a test), with no credentials to check: an admin named by `decided_by`. */
export function trustedDecider(by: string): Decider {
  return { by, identities: [identityOf(by)], admin: true };
}

/**
 * The rule that governs a proposal: the first whose `match` fits its request's topic and kind (a list
 * left out matches anything). None: the proposal is reviewed as without rules.
 */
export function ruleFor(review: Pick<ReviewSettings, 'rules'>, request: { topic: string; kind: string }): ReviewRule | null {
  const topic = normalizeTopic(request.topic);
  const kind = request.kind.trim().toLowerCase();
  for (const rule of review.rules ?? []) {
    if (rule.match.topics && !rule.match.topics.includes(topic)) continue;
    if (rule.match.kinds && !rule.match.kinds.some((k) => k.trim().toLowerCase() === kind)) continue;
    return rule;
  }
  return null;
}

const matches = (entries: readonly ReviewerEntry[], decider: Decider) => {
  const named = new Set(entries.flatMap(entryIdentities));
  return decider.identities.some((i) => named.has(i));
};

/** Whether the decider is one of the rule's `require` (their accept is the sign-off it needs). */
export const isRequired = (rule: ReviewRule, decider: Decider): boolean => matches(rule.require, decider);

/** Whether a decider may vote under a rule: one of its reviewers or required sign-offs, or an admin while admins decide. */
export function mayDecide(review: Pick<ReviewSettings, 'adminsDecide'>, rule: ReviewRule, decider: Decider): boolean {
  if (decider.admin && review.adminsDecide !== false) return true;
  return matches(rule.reviewers, decider) || matches(rule.require, decider);
}

/** Who may decide under a rule, in words: its reviewers, and its required sign-offs when it has some. */
export function whoMayDecide(rule: ReviewRule): string {
  const reviewers = rule.reviewers.map(entryText).join(', ');
  return rule.require.length > 0 ? `${reviewers} (and, for the required sign-off, ${rule.require.map(entryText).join(', ')})` : reviewers;
}

/** The 403 for a decider the rule does not name. */
export function notAReviewer(rule: ReviewRule, decider: Decider): Error {
  return forbidden(`This proposal is governed by the review rule "${rule.name}": only its reviewers may decide it: ${whoMayDecide(rule)}. ${decider.by} is not one of them; nothing changed.`);
}

/** Whether one of the decider's Slack, Teams or email identities is the address of this expert in the registry. */
export function isExpertOf(experts: Pick<ExpertRegistry, 'at'>, decider: Decider, expertId: string): boolean {
  return decider.identities.some((identity) => {
    const colon = identity.indexOf(':');
    const kind = identity.slice(0, colon);
    return (kind === 'slack' || kind === 'teams' || kind === 'email') && experts.at(kind, identity.slice(colon + 1))?.id === expertId;
  });
}

/**
 * The one person behind a decider's identities, so their votes count once however they vote: a person
 * listed with several identities in the rule is that entry; an expert of the registry reached by their
 * Slack, Teams or email identity is that expert; anyone else is their first identity that is not a group.
 */
export function personOf(experts: Pick<ExpertRegistry, 'at'>, rule: ReviewRule, decider: Decider): string {
  for (const entry of [...rule.reviewers, ...rule.require]) {
    if (typeof entry === 'string') continue;
    const identities = entryIdentities(entry);
    if (decider.identities.some((i) => identities.includes(i))) return `person:${identities[0]}`;
  }
  for (const identity of decider.identities) {
    const colon = identity.indexOf(':');
    const kind = identity.slice(0, colon);
    const expert = kind === 'slack' || kind === 'teams' || kind === 'email' ? experts.at(kind, identity.slice(colon + 1)) : undefined;
    if (expert) return `expert:${expert.id}`;
  }
  return decider.identities.find((i) => !i.startsWith('group:')) ?? identityOf(decider.by);
}
