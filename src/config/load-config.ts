import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { parseDocument } from 'yaml';
import type { z } from 'zod';
import { configSchema, type ConfigFile } from './config-schema.js';
import { normalizeTopic } from '../core/normalize-topic.js';
import { ruleIssue } from './review-rules-schema.js';

/** The validated configuration plus where it came from. */
export interface Config extends ConfigFile {
  /** Absolute path of the YAML file, rewritten by `PUT /experts`. */
  file: string;
  /** Absolute path of the SQLite database. */
  storagePath: string;
}

export class ConfigError extends Error {
  readonly code = 'config_error';
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export function formatIssues(file: string, issues: readonly z.core.$ZodIssue[]): string {
  const lines = issues.map((issue) => {
    const at = issue.path.length > 0 ? issue.path.map(String).join('.') : '(top level)';
    const message = issueMessage(issue);
    return `  ${at}: ${message}`;
  });
  return `Invalid configuration in ${file}:\n${lines.join('\n')}`;
}

function issueMessage(issue: z.core.$ZodIssue): string {
  return issue.code === 'invalid_type' && /received undefined$/.test(issue.message) ? 'is required' : issue.message;
}

/** Parses and validates YAML text. Throws ConfigError naming the file, key path and problem. */
export function parseConfig(text: string, file: string): Config {
  const doc = parseDocument(text, { prettyErrors: true });
  if (doc.errors.length > 0) {
    throw new ConfigError(`Invalid YAML in ${file}:\n${doc.errors.map((e) => `  ${e.message}`).join('\n')}`);
  }
  const raw: unknown = doc.toJS() ?? {};
  const result = configSchema.safeParse(raw);
  if (!result.success) throw new ConfigError(formatIssues(file, result.error.issues.map((issue) => ({ ...issue, ...ruleIssue(raw, issue.path, issueMessage(issue)) }))));
  const config = result.data;
  // Fallback topics are matched after normalization, like request topics.
  config.topics = Object.fromEntries(Object.entries(config.topics).map(([t, v]) => [normalizeTopic(t), v]));
  for (const rule of config.review.rules) if (rule.match.topics) rule.match.topics = rule.match.topics.map(normalizeTopic);
  return {
    ...config,
    file,
    storagePath: resolve(dirname(file), config.storage.path ?? 'expertq.db'),
  };
}

export function loadConfig(path: string): Config {
  const file = resolve(path);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw unreadableConfig(file, error as NodeJS.ErrnoException);
  }
  return parseConfig(text, file);
}

/** Why a configuration file could not be read, in words, with the file and the system's code. */
export function unreadableConfig(file: string, error: NodeJS.ErrnoException): ConfigError {
  if (error.code === 'ENOENT') return new ConfigError(`Configuration file not found: ${file} (create one with "expertq init", or pass --config)`);
  return new ConfigError(`Cannot read the configuration file ${file}: ${systemReason(error)}.`);
}

const SYSTEM_REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'it is a directory',
  ENOTDIR: 'a folder on its path is a file',
  ELOOP: 'its symbolic links go round in a loop',
  EMFILE: 'this process has too many files open',
  EIO: 'the disk reported an input/output error',
};

/** A file-system error as words people read, keeping the code for searching: "permission denied (EACCES)". */
export function systemReason(error: NodeJS.ErrnoException): string {
  const words = error.code ? SYSTEM_REASONS[error.code] : undefined;
  if (words) return `${words} (${error.code})`;
  return error.code ? `${error.message.replace(/^[A-Z]+: /, '')} (${error.code})` : error.message;
}

/**
 * The environment expertq reads secrets from: the process environment over an optional `.env` file
 * beside the config (an empty variable counts as unset). This is the one place environment variables are read.
 */
export function readEnv(configFile: string, env: NodeJS.ProcessEnv = process.env): Record<string, string | undefined> {
  const dotenv = resolve(dirname(configFile), '.env');
  let fromFile: Record<string, string | undefined> = {};
  try {
    fromFile = parseEnv(readFileSync(dotenv, 'utf8'));
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    if (e.code !== 'ENOENT') throw new ConfigError(`Cannot read ${dotenv}: ${systemReason(e)}.`);
  }
  const entries = Object.entries(env).filter(([, value]) => value !== undefined) as Array<[string, string]>;
  // A non-empty process variable wins over the file; an empty one only where the file has none, so
  // "set but empty" stays visible (it is an error for the API token, not a way to turn auth off).
  const set = entries.filter(([, value]) => value !== '');
  const empty = entries.filter(([name, value]) => value === '' && !(name in fromFile));
  return { ...Object.fromEntries(empty), ...fromFile, ...Object.fromEntries(set) };
}

/**
 * A port given outside the config file (`PORT`, `serve --port`), which overrides `server.port` for the
 * server and for the client commands alike; undefined when not given.
 */
export function portOverride(value: string | undefined, name: string): number | undefined {
  if (value === undefined || value === '') return undefined;
  const port = Number(value);
  if (!/^\d+$/.test(value.trim()) || port < 1 || port > 65535) throw new ConfigError(`${name} must be a port number (1 to 65535), not "${value}".`);
  return port;
}

/** Secrets named by `*_env` keys, resolved against an environment. Empty values count as unset. */
export interface Secrets {
  apiToken: string | undefined;
  /** `server.api_token_env` is set to the empty string: a mistake, never "authentication off". */
  apiTokenEmpty: boolean;
  /** `server.tokens`: each scoped token with its value (undefined when its variable is unset). */
  scopedTokens: Array<{ name: string; role: 'consumer' | 'reviewer' | 'admin'; env: string; token: string | undefined }>;
  llmApiKey: string | undefined;
  chatBotToken: string | undefined;
  chatSigningSecret: string | undefined;
  chatAppToken: string | undefined;
  /** The PostgreSQL URL `storage.url_env` names (undefined when that variable is unset). */
  databaseUrl: string | undefined;
  /** `auth.oidc.client_secret_env` and `auth.session_secret_env`. */
  oidcClientSecret: string | undefined;
  sessionSecret: string | undefined;
  /** `email.smtp_url_env`, `email.imap_url_env` and `email.inbound_token_env`. */
  emailSmtpUrl: string | undefined;
  emailImapUrl: string | undefined;
  emailInboundToken: string | undefined;
  /** `teams.app_password_env`. */
  teamsAppPassword: string | undefined;
}

export function readSecrets(config: Config, env: Record<string, string | undefined>): Secrets {
  const get = (name: string | undefined) => (name && env[name] ? env[name] : undefined);
  return {
    apiToken: get(config.server.api_token_env),
    apiTokenEmpty: env[config.server.api_token_env] === '',
    scopedTokens: config.server.tokens.map((t) => ({ name: t.name, role: t.role, env: t.token_env, token: get(t.token_env) })),
    llmApiKey: get(config.llm?.api_key_env),
    chatBotToken: get(config.chat?.bot_token_env),
    chatSigningSecret: get(config.chat?.signing_secret_env),
    chatAppToken: get(config.chat?.app_token_env),
    databaseUrl: get(config.storage.url_env),
    oidcClientSecret: get(config.auth.oidc?.client_secret_env),
    sessionSecret: get(config.auth.session_secret_env),
    emailSmtpUrl: get(config.email?.smtp_url_env),
    emailImapUrl: get(config.email?.imap_url_env),
    emailInboundToken: get(config.email?.inbound_token_env),
    teamsAppPassword: get(config.teams?.app_password_env),
  };
}
