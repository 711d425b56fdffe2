import { Client as ApiClient, PUBLIC, withOverrides, type ActivityParams } from '@microsoft/teams.api';
import { App, type HttpRouteHandler, type IHttpServerAdapter, type IHttpServerRequest, type IHttpServerResponse } from '@microsoft/teams.apps';
import type { ILogger } from '@microsoft/teams.common/logging';
import type { Logger } from 'pino';
import type { TeamsSettings } from '../../config/teams-schema.js';
import { BotTokens, MICROSOFT_LOGIN } from './bot-token.js';

/** Where activities arrive (the bot's messaging endpoint in its Azure Bot registration). */
export const TEAMS_MESSAGES_PATH = '/api/v1/teams/messages';
/** The Bot Connector of the commercial cloud, for messages to the review channel. */
const DEFAULT_API_URL = 'https://smba.trafficmanager.net/teams/';

/** The SDK registers its one route here; our HTTP server calls it (no second server, no Express). */
class RouteCapture implements IHttpServerAdapter {
  handler: HttpRouteHandler | null = null;
  registerRoute(_method: 'POST', _path: string, handler: HttpRouteHandler): void {
    this.handler = handler;
  }
}

/** The SDK's log lines into ours: warnings and errors only, under `teams` (its own logger prints to the console). */
function sdkLogger(log: Logger): ILogger {
  const line = (level: 'warn' | 'error') => (...msg: unknown[]) => log[level]({ sdk: 'teams' }, msg.map((m) => (m instanceof Error ? m.message : typeof m === 'string' ? m : JSON.stringify(m))).join(' '));
  const logger: ILogger = { debug: () => {}, trace: () => {}, info: () => {}, warn: line('warn'), error: line('error'), log: () => {}, child: () => logger };
  return logger;
}

export interface TeamsApp {
  app: App;
  tokens: BotTokens;
  /** The Bot Connector at `serviceUrl`, authenticated as the bot. */
  connector(serviceUrl: string): ApiClient;
  /** The Bot Connector for messages that have no stored address (the review channel). */
  apiUrl: string;
  /** Hands one HTTP request to the SDK: it checks the Bot Framework token, then runs the activity. */
  handle(request: IHttpServerRequest): Promise<IHttpServerResponse>;
}

/**
 * The Microsoft Teams SDK, set up for expertq: the bot's token by the client-credentials grant
 * (`BotTokens`), incoming activities checked against `teams.cloud`'s keys and issuer (or the Bot
 * Framework's), the SDK's route served by our HTTP server, its logging in ours.
 */
export function createTeamsApp(settings: TeamsSettings, password: string, log: Logger): TeamsApp {
  const cloudSettings = settings.cloud;
  const loginUrl = cloudSettings.login_url ?? MICROSOFT_LOGIN;
  const tokens = new BotTokens(loginUrl, settings.tenant_id, settings.app_id, password);
  const apiUrl = cloudSettings.api_url ?? DEFAULT_API_URL;
  const cloud = withOverrides(PUBLIC, {
    ...(cloudSettings.login_url ? { loginEndpoint: cloudSettings.login_url } : {}),
    ...(cloudSettings.openid_metadata_url ? { openIdMetadataUrl: cloudSettings.openid_metadata_url } : {}),
    ...(cloudSettings.token_issuer ? { tokenIssuer: cloudSettings.token_issuer } : {}),
    // The SDK looks up a user sign-in token before every activity; a stand-in answers it where it signs in.
    ...(cloudSettings.login_url ? { tokenServiceUrl: new URL(cloudSettings.login_url).origin } : {}),
  });
  const capture = new RouteCapture();
  const app = new App({
    clientId: settings.app_id,
    tenantId: settings.tenant_id,
    token: (scope) => tokens.token(scope),
    serviceUrl: apiUrl,
    cloud,
    httpServerAdapter: capture,
    messagingEndpoint: TEAMS_MESSAGES_PATH,
    logger: sdkLogger(log),
  });
  // One client per Bot Connector address (a tenant has one or two), not one per message.
  const connectors = new Map<string, ApiClient>();
  const connector = (serviceUrl: string): ApiClient => {
    const base = serviceUrl.replace(/\/+$/, '');
    let client = connectors.get(base);
    if (!client) connectors.set(base, (client = new ApiClient(base, { token: () => tokens.token(cloud.botScope) }, undefined, cloud)));
    return client;
  };
  return {
    app,
    tokens,
    apiUrl,
    connector,
    async handle(request) {
      if (!capture.handler) throw new Error('the Teams channel was not started');
      return capture.handler(request);
    },
  };
}

export type { ActivityParams };
