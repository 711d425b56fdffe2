import type { Role } from '../../service/sessions/index.js';

/** The roles sign-in grants (`consumer` is for tokens only). */
export type SessionRole = Exclude<Role, 'consumer'>;

export interface RoleGroups {
  reviewers: readonly string[];
  admins: readonly string[];
}

/**
 * The role a person's groups grant: admin over reviewer over none. The claim may be a list or a
 * single name (some providers send one group as a string); group names compare exactly.
 */
export function roleFromGroups(claim: unknown, groups: RoleGroups): SessionRole {
  const held = new Set((Array.isArray(claim) ? claim : [claim]).filter((g): g is string => typeof g === 'string'));
  if (groups.admins.some((g) => held.has(g))) return 'admin';
  if (groups.reviewers.some((g) => held.has(g))) return 'reviewer';
  return 'none';
}

/**
 * The groups a person's claim names, as review rules see them (`group:<name>`): at most 40, each at
 * most 200 characters, so the session cookie stays small.
 */
export function groupsFromClaim(claim: unknown): string[] {
  return (Array.isArray(claim) ? claim : [claim]).filter((g): g is string => typeof g === 'string' && g.length > 0 && g.length <= 200).slice(0, 40);
}

/** The name recorded for a person (`name_claim`): a non-empty string of at most 200 characters, or null. */
export function nameFromClaim(claim: unknown): string | null {
  if (typeof claim !== 'string') return null;
  const name = claim.trim();
  return name.length > 0 && name.length <= 200 ? name : null;
}
