import type { Logger } from 'pino';
import type { Clock } from '../../clock.js';
import { ConfigError, type Config, type Secrets } from '../../config/load-config.js';
import { slackCode } from './slack-code.js';
import { SlackTransport } from './slack-transport.js';

/**
 * `serve --transport chat`: checks the `chat` section and its variables, then the bot token with
 * Slack (`auth.test`), before anything else starts, so a bad setup stops start-up with a message that
 * names the variable or Slack's error code, and nothing half-starts.
 */
export async function createSlackTransport(config: Config, secrets: Secrets, log: Logger, clock: Clock): Promise<SlackTransport> {
  const chat = config.chat;
  if (!chat) throw new ConfigError(`--transport chat needs a "chat" section in ${config.file} (see docs/slack.md).`);
  const need = (key: string, variable: string | undefined, value: string | undefined): string => {
    if (!variable) throw new ConfigError(`chat.${key} is required in ${config.file} for --transport chat (see docs/slack.md).`);
    if (!value) throw new ConfigError(`The environment variable ${variable} (chat.${key}) is not set; it must hold the Slack ${LABEL[key]}.`);
    return value;
  };
  const botToken = need('bot_token_env', chat.bot_token_env, secrets.chatBotToken);
  if (!chat.app_token_env && !chat.signing_secret_env) {
    throw new ConfigError(
      `chat needs app_token_env (Socket Mode, recommended) or signing_secret_env (HTTP events) in ${config.file}.`,
    );
  }
  const appToken = chat.app_token_env ? need('app_token_env', chat.app_token_env, secrets.chatAppToken) : undefined;
  const signingSecret = chat.signing_secret_env ? need('signing_secret_env', chat.signing_secret_env, secrets.chatSigningSecret) : undefined;

  const transport = new SlackTransport({
    botToken,
    appToken,
    signingSecret,
    apiUrl: chat.api_url,
    reviewChannel: chat.review_channel,
    awayStatus: { emoji: chat.away_status_emoji, pattern: new RegExp(chat.away_status_pattern, 'i') },
    experts: config.experts.map((e) => ({ id: e.id, name: e.name })),
    log,
    clock,
  });
  try {
    await transport.init();
  } catch (error) {
    const refused = (error as { data?: { error?: string } }).data?.error;
    throw new ConfigError(
      refused
        ? `Slack refused the bot token in ${chat.bot_token_env} (auth.test: ${refused}).`
        : `Slack could not be reached at ${chat.api_url} to check the bot token in ${chat.bot_token_env} (${slackCode(error)}).`,
    );
  }
  log.info({ mode: appToken ? 'socket' : 'http', api_url: chat.api_url }, 'Slack bot token accepted');
  return transport;
}

const LABEL: Record<string, string> = {
  bot_token_env: 'bot token (xoxb-…)',
  app_token_env: 'app-level token (xapp-…) for Socket Mode',
  signing_secret_env: 'signing secret for HTTP events',
};

export { slackCode } from './slack-code.js';
