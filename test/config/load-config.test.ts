import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from '../../src/config/durations.js';
import { ConfigError, loadConfig, parseConfig, readEnv, readSecrets, unreadableConfig } from '../../src/config/load-config.js';
import { rereadConfig } from '../../src/config/reread-config.js';

const FILE = '/etc/expertq/service.yaml';
const error = (yaml: string): string => {
  try {
    parseConfig(yaml, FILE);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error('expected a ConfigError');
};

describe('configuration', () => {
  it('fills the seed’s defaults', () => {
    const config = parseConfig('org: {name: Acme}\n', FILE);
    expect(config.org).toEqual({ name: 'Acme', timezone: 'UTC' });
    expect(config.server).toMatchObject({ port: 8776, host: '127.0.0.1', api_token_env: 'SERVICE_API_TOKEN', body_limit: 1_048_576, tick_ms: 1000, allow_private_webhooks: false });
    expect(config.defaults).toEqual({
      escalation_after: 7_200_000,
      give_up_after: 86_400_000,
      quiet_hours: null,
      max_open_asks_per_expert: 3,
      max_asks_per_expert_per_day: 5,
      max_requests_per_consumer_per_day: null,
      warn_before: null,
    });
    expect(config.storagePath).toBe('/etc/expertq/expertq.db');
    expect(config.llm).toBeNull();
    expect(config.chat).toBeNull();
    expect(config.experts).toEqual([]);
  });

  it('selects PostgreSQL with storage.url_env, with a pool of 10 unless storage.pool_size says otherwise', () => {
    const config = parseConfig('org: {name: Acme}\nstorage: {url_env: DATABASE_URL, pool_size: 4}\n', FILE);
    expect(config.storage).toMatchObject({ url_env: 'DATABASE_URL', pool_size: 4 });
    expect(readSecrets(config, { DATABASE_URL: 'postgres://db/expertq' }).databaseUrl).toBe('postgres://db/expertq');
    expect(parseConfig('org: {name: Acme}\n', FILE).storage.pool_size).toBe(10);
  });

  it('library: entries stale after 90 days and shared with every consumer unless it says otherwise', () => {
    expect(parseConfig('org: {name: Acme}\n', FILE).library).toEqual({ verify_after: 90 * 86_400_000, share: 'all', reuse: 'offer', min_score: 0.6, llm_min_score: 0.3 });
    expect(parseConfig('org: {name: Acme}\nlibrary: {verify_after: 30d, share: same_consumer}\n', FILE).library).toMatchObject({ verify_after: 30 * 86_400_000, share: 'same_consumer' });
    expect(error('org: {name: Acme}\nlibrary: {share: everyone}\n')).toContain('library.share');
    expect(error('org: {name: Acme}\nlibrary: {min_score: 2}\n')).toContain('library.min_score');
  });

  it('email: 600 mails a minute unless max_per_minute says otherwise, a whole number from 1 to 60,000', () => {
    const email = 'email: {smtp_url_env: SMTP_URL, from: "Acme expertq <expertq@acme.example>"';
    expect(parseConfig(`org: {name: Acme}\n${email}}\n`, FILE).email?.max_per_minute).toBe(600);
    expect(parseConfig(`org: {name: Acme}\n${email}, max_per_minute: 30}\n`, FILE).email?.max_per_minute).toBe(30);
    expect(error(`org: {name: Acme}\n${email}, max_per_minute: 0}\n`)).toContain('email.max_per_minute');
    expect(error(`org: {name: Acme}\n${email}, max_per_minute: 2.5}\n`)).toContain('email.max_per_minute');
  });

  it('refuses storage.path and storage.url_env together', () => {
    expect(error('org: {name: Acme}\nstorage: {path: x.db, url_env: DATABASE_URL}\n')).toContain(
      'storage.url_env: cannot be set with storage.path: choose SQLite (path) or PostgreSQL (url_env)',
    );
  });

  it('reads the example file that npm start uses', () => {
    const config = loadConfig('service.example.yaml');
    expect(config.experts.map((e) => e.id)).toEqual(['dana', 'lee', 'sam']);
    expect(config.topics.security?.fallback).toBe('sam');
  });

  it.each([
    ['org:\n  timezone: UTC\n', 'org.name', 'is required'],
    ['org: {name: A, timezone: Mars/Olympus}\n', 'org.timezone', 'IANA time zone'],
    ['org: {name: A}\ndefaults: {escalation_after: 2x}\n', 'defaults.escalation_after', '"2x" is not a duration'],
    ['org: {name: A}\ndefaults: {give_up_after: 0s}\n', 'defaults.give_up_after', 'must be longer than 0'],
    ['org: {name: A}\ndefaults: {escalation_after: 400d}\n', 'defaults.escalation_after', 'longer than the maximum of 365 days'],
    ['org: {name: A}\ndefaults: {quiet_hours: ["25:00", "07:00"]}\n', 'defaults.quiet_hours.0', 'HH:MM'],
    ['org: {name: A}\ndefaults: {max_open_asks_per_expert: 0}\n', 'defaults.max_open_asks_per_expert', ''],
    ['org: {name: A}\ndefaults: {max_requests_per_consumer_per_day: 0}\n', 'defaults.max_requests_per_consumer_per_day', ''],
    ['org: {name: A}\ndefaults: {warn_before: soon}\n', 'defaults.warn_before', '"soon" is not a duration'],
    ['org: {name: A}\nserver: {port: 99999}\n', 'server.port', ''],
    ['org: {name: A}\nserver: {api_token_env: "not a var"}\n', 'server.api_token_env', 'environment variable name'],
    ['org: {name: A}\nexperts:\n  - {id: a, topics: [x]}\n', 'experts.0.name', ''],
    ['org: {name: A}\nexperts:\n  - {id: a, name: A, topics: [x], escalation_to: b}\n', 'experts.0.escalation_to', 'unknown expert id "b"'],
    ['org: {name: A}\ntopics: {security: {fallback: ghost}}\n', 'topics.security.fallback', 'unknown expert id "ghost"'],
    ['org: {name: A}\nexperts:\n  - {id: a, name: A, topics: [x], working_hours: "Mon-Fry 09:00-17:00"}\n', 'experts.0.working_hours', '"Fry" in "Mon-Fry 09:00-17:00" is not a day'],
    ['org: {name: A}\nexperts:\n  - {id: a, name: A, topics: [x], timezone: Mars/Olympus}\n', 'experts.0.timezone', 'IANA time zone'],
    ['org: {name: A}\nexperts:\n  - {id: a, name: A, topics: [x], max_open_asks: 0}\n', 'experts.0.max_open_asks', ''],
    ['org: {name: A}\nsurprise: 1\n', '(top level)', 'surprise'],
  ])('names the file, key path and problem: %s', (yaml, path, problem) => {
    const message = error(yaml);
    expect(message).toContain(FILE);
    expect(message).toContain(`${path}:`);
    expect(message).toContain(problem);
  });

  it('reads an expert’s time zone, working hours and own caps', () => {
    const yaml = 'org: {name: A}\nexperts:\n  - id: mei\n    name: Mei Tan\n    topics: [payments]\n    timezone: Asia/Singapore\n    working_hours: "Mon-Thu 09:00-17:00, Fri 09:00-13:00"\n    max_open_asks: 1\n    max_asks_per_day: 4\n';
    expect(parseConfig(yaml, FILE).experts).toEqual([
      { id: 'mei', name: 'Mei Tan', topics: ['payments'], timezone: 'Asia/Singapore', working_hours: 'Mon-Thu 09:00-17:00, Fri 09:00-13:00', max_open_asks: 1, max_asks_per_day: 4 },
    ]);
  });

  it('reports a bad working_hours on one line', () => {
    const message = error('org: {name: A}\nexperts:\n  - {id: a, name: A, topics: [x], working_hours: "9-5"}\n');
    expect(message.split('\n').filter((line) => line.includes('working_hours'))).toHaveLength(1);
  });

  it('accepts defaults.give_up_after shorter than defaults.escalation_after', () => {
    expect(parseConfig('org: {name: A}\ndefaults: {give_up_after: 10m, escalation_after: 2h}\n', FILE).defaults).toMatchObject({ give_up_after: 600_000, escalation_after: 7_200_000 });
  });

  it('reads server.allowed_hosts as Host names with an optional port, and refuses URLs, paths and wildcards', () => {
    const config = parseConfig('org: {name: Acme}\nserver: {allowed_hosts: [expertq.example.com, "expertq.internal:8443", 10.0.0.5, "[fd00::5]:8776"]}\n', FILE);
    expect(config.server.allowed_hosts).toEqual(['expertq.example.com', 'expertq.internal:8443', '10.0.0.5', '[fd00::5]:8776']);
    for (const bad of ['https://expertq.example.com', 'expertq.example.com/ui', '*.example.com', 'expertq.example.com:http', '']) {
      const message = error(`org: {name: Acme}\nserver: {allowed_hosts: ["${bad}"]}\n`);
      expect(message, bad).toMatch(/server\.allowed_hosts\.0.*must be a host name or IP address as clients send it in the Host header, optionally with a port/);
    }
  });

  it('says the file is a directory, not that it is missing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'expertq-dir-'));
    expect(() => loadConfig(dir)).toThrow(`Cannot read the configuration file ${dir}: it is a directory`);
  });

  it.each([
    ['EACCES', 'permission denied'],
    ['EPERM', 'permission denied'],
    ['EISDIR', 'it is a directory'],
    ['ENOENT', 'not found'],
  ])('names the system reason %s as %j', (code, words) => {
    const failure = Object.assign(new Error(`${code}: something`), { code });
    expect(unreadableConfig('/etc/expertq/service.yaml', failure).message).toBe(
      code === 'ENOENT'
        ? 'Configuration file not found: /etc/expertq/service.yaml (create one with "expertq init", or pass --config)'
        : `Cannot read the configuration file /etc/expertq/service.yaml: ${words} (${code}).`,
    );
  });

  it('reports broken YAML with its position', () => {
    expect(error('org: {name: A\n')).toMatch(/Invalid YAML in \/etc\/expertq\/service.yaml:[\s\S]*line/);
  });

  it('says how to create a missing file', () => {
    expect(() => loadConfig('/nonexistent/service.yaml')).toThrow(/not found: \/nonexistent\/service.yaml \(create one with "expertq init"/);
  });

  it('reads secrets from the named variables, process env over a .env next to the config', () => {
    const dir = mkdtempSync(join(tmpdir(), 'expertq-env-'));
    const file = join(dir, 'service.yaml');
    writeFileSync(file, 'org: {name: A}\nserver: {api_token_env: MY_TOKEN}\n');
    writeFileSync(join(dir, '.env'), 'MY_TOKEN=from-dotenv\nOTHER=1\n');
    const config = loadConfig(file);
    expect(readSecrets(config, readEnv(file, {})).apiToken).toBe('from-dotenv');
    expect(readSecrets(config, readEnv(file, { MY_TOKEN: 'from-env' })).apiToken).toBe('from-env');
    expect(readSecrets(config, readEnv(file, { MY_TOKEN: '' })).apiToken).toBe('from-dotenv');
  });
});

describe('durations', () => {
  it.each([
    ['90s', 90_000],
    ['30m', 1_800_000],
    ['2h', 7_200_000],
    ['1h30m', 5_400_000],
    ['1d', 86_400_000],
    ['PT2H', 7_200_000],
    ['P1D', 86_400_000],
    ['PT1H30M', 5_400_000],
    ['P1W', 604_800_000],
  ])('%s = %i ms', (text, ms) => expect(parseDuration(text)).toBe(ms));

  it.each(['', 'soon', '2 hours', '-1h', 'P1M', 'P1Y', 'PT0S', '2x'])('refuses %j', (text) => expect(parseDuration(text)).toBeNull());

  it('formats ISO-8601 for the wire', () => {
    expect(formatDuration(7_200_000)).toBe('PT2H');
    expect(formatDuration(86_400_000)).toBe('P1D');
    expect(formatDuration(5_400_000)).toBe('PT1H30M');
    expect(formatDuration(90_000)).toBe('PT1M30S');
  });
});

describe('review rules in the configuration', () => {
  it('without rules, review is as before: no rules, admins decide', () => {
    const { review } = parseConfig('org: {name: Acme}\n', FILE);
    expect(review).toEqual({ remind_after: 3_600_000, rules: [], admins_decide: true });
  });

  it('fills each rule’s defaults and keeps every form of reviewer', () => {
    const yaml = `org: {name: Acme}
review:
  admins_decide: false
  rules:
    - name: security
      match: {topics: [Security, "Incident  Response"], kinds: [policy]}
      reviewers: ["group:security-leads", "alice@acme.example", "token:sec-bot", "slack:U012AB", "teams:00000000-0000-0000-0000-0000000000aa", "email:bob@acme.example",
                  {name: Carol, email: carol@acme.example, slack: U0CAROL}]
      approvals: 2
      require: ["group:compliance"]
      auto_accept: false
    - reviewers: ["group:reviewers"]
`;
    const { review } = parseConfig(yaml, FILE);
    expect(review.admins_decide).toBe(false);
    expect(review.rules[0]).toMatchObject({ name: 'security', match: { topics: ['security', 'incident response'], kinds: ['policy'] }, approvals: 2, veto: true, require: ['group:compliance'], auto_accept: false });
    expect(review.rules[0]!.reviewers).toHaveLength(7);
    expect(review.rules[1]).toEqual({ match: {}, reviewers: ['group:reviewers'], approvals: 1, veto: true, require: [], auto_accept: true });
  });

  it('a wrong rule is a start-up error naming the rule by position and name', () => {
    const message = error('org: {name: Acme}\nreview:\n  rules:\n    - {name: security, reviewers: ["group:sec"], approvals: 0}\n    - {reviewers: []}\n');
    expect(message).toContain('review.rules[1] (security): approvals must be at least 1');
    expect(message).toContain('review.rules[2] (rule 2): reviewers must list at least one reviewer');
  });

  it('a reviewer entry that says no one is refused, naming the entry', () => {
    expect(error('org: {name: Acme}\nreview:\n  rules:\n    - {reviewers: ["slack:bob"]}\n')).toContain('review.rules[1] (rule 1): reviewers.0');
    expect(error('org: {name: Acme}\nreview:\n  rules:\n    - {reviewers: ["groups:sec"]}\n')).toContain('starts with an unknown kind');
    expect(error('org: {name: Acme}\nreview:\n  rules:\n    - {reviewers: [{name: Dana}]}\n')).toContain('a person needs at least one of email, slack or teams');
    expect(error('org: {name: Acme}\nreview:\n  rules:\n    - {reviewers: ["group:a"], quorum: 2}\n')).toContain('review.rules[1] (rule 1)');
  });

  it('a reload reads the rules again and reports a wrong one the same way', () => {
    const dir = mkdtempSync(join(tmpdir(), 'expertq-rules-'));
    const file = join(dir, 'service.yaml');
    writeFileSync(file, 'org: {name: Acme}\nreview:\n  rules:\n    - {name: legal, reviewers: ["group:legal"], approvals: 0}\n');
    const { whole } = rereadConfig(file);
    expect(whole).toBeInstanceOf(ConfigError);
    expect((whole as ConfigError).message).toContain('review.rules[1] (legal): approvals must be at least 1');
  });
});
