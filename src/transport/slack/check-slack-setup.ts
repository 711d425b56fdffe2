import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { slackCode } from './slack-code.js';

/** What start-up asks Slack about: the configured experts and `chat.review_channel`. */
export interface SlackSetup {
  experts: ReadonlyArray<{ id: string; name: string }>;
  reviewChannel?: string | undefined;
}

/** Errors about the one user asked for; any other error says nothing about the next expert either. */
const NO_SUCH_USER = new Set(['user_not_found', 'users_not_found']);
const INVITE = '/invite @<app name>';

/**
 * Asks Slack whether the configuration can work: every expert id a real, active person (`users.info`,
 * the reason for the `users:read` scope), and the bot a member of the review channel
 * (`conversations.info`). A mistake here otherwise shows only when the first ask or review card
 * fails. Runs after start-up and never rejects: each problem, and each Slack error, is one warning
 * that names what to fix; the end is one info line.
 */
export async function checkSlackSetup(client: WebClient, setup: SlackSetup, log: Logger): Promise<void> {
  let problems = 0;
  const warn = (fields: Record<string, unknown>, message: string) => {
    problems++;
    log.warn({ check: 'slack_setup', ...fields }, message);
  };
  await Promise.all([checkExperts(client, setup.experts, warn), setup.reviewChannel ? checkReviewChannel(client, setup.reviewChannel, warn) : null]);
  log.info({ check: 'slack_setup', experts: setup.experts.length, review_channel: setup.reviewChannel ?? null, problems }, 'Slack setup checked');
}

type Warn = (fields: Record<string, unknown>, message: string) => void;

/** One at a time: a long expert list must not spend Slack's rate limit that the asks need. */
async function checkExperts(client: WebClient, experts: SlackSetup['experts'], warn: Warn): Promise<void> {
  for (const expert of experts) {
    const who = `Expert ${expert.id} (${expert.name})`;
    try {
      const { user } = await client.users.info({ user: expert.id });
      if (user?.deleted) warn({ expert_id: expert.id }, `${who} has a deactivated Slack account: asks to it are passed on. Remove or replace the expert in experts[].`);
      else if (user?.is_bot) warn({ expert_id: expert.id }, `${who} is a Slack bot, not a person: asks to it are passed on. Use a person's member id in experts[].`);
    } catch (error) {
      const code = slackCode(error);
      if (NO_SUCH_USER.has(code)) {
        warn(
          { expert_id: expert.id, code },
          `${who} is not a Slack user of this workspace (users.info: ${code}): asks to it are passed on. Fix the id in experts[] (the member id from the person's Slack profile).`,
        );
        continue;
      }
      const fix = code === 'missing_scope' ? ': add the users:read scope to the Slack app and reinstall it' : '';
      warn({ code }, `Could not check the experts' Slack accounts (users.info: ${code})${fix}. The ids are not checked this time.`);
      return;
    }
  }
}

async function checkReviewChannel(client: WebClient, channel: string, warn: Warn): Promise<void> {
  try {
    const info = (await client.conversations.info({ channel })).channel;
    if (info?.is_member === false) {
      const name = info.name ? `#${info.name} (${channel})` : channel;
      warn({ channel }, `The bot is not a member of the review channel ${name}: review cards cannot be posted there. Invite it with ${INVITE} in that channel.`);
    }
  } catch (error) {
    const code = slackCode(error);
    if (code === 'channel_not_found') {
      warn(
        { channel, code },
        `The review channel ${channel} (chat.review_channel) was not found: check the id; a private channel is found only once the bot is in it (${INVITE}).`,
      );
    } else if (code === 'missing_scope') {
      warn(
        { channel, code },
        `Could not check the review channel ${channel} (conversations.info: missing_scope): add the channels:read scope (groups:read for a private channel) and reinstall the app to have it checked, and make sure the bot is in the channel (${INVITE}).`,
      );
    } else {
      warn({ channel, code }, `Could not check the review channel ${channel} (conversations.info: ${code}).`);
    }
  }
}
