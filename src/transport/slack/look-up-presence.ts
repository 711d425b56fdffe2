import type { WebClient } from '@slack/web-api';
import type { Presence } from '../transport.js';
import { readSlackStatus, type AwayStatusRules, type DndInfo, type StatusProfile } from './read-slack-status.js';

/**
 * Asks Slack for an expert's do-not-disturb (`dnd.info`, scope `dnd:read`) and status
 * (`users.profile.get`, scope `users.profile:read`), both at once. Rejects when either call fails: the
 * caller decides what a failure means (it never holds a send).
 */
export async function lookUpPresence(client: WebClient, userId: string, now: () => number, rules: AwayStatusRules): Promise<Presence> {
  const [dnd, profile] = await Promise.all([client.dnd.info({ user: userId }), client.users.profile.get({ user: userId })]);
  return readSlackStatus(dnd as DndInfo, (profile.profile ?? {}) as StatusProfile, now(), rules);
}
