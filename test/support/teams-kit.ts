import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { startServer, type RunningServer } from '../../src/server.js';
import { callJson } from './json-call.js';
import { captureLogger, type Capture } from './capture.js';
import { FakeClock } from './fake-clock.js';
import { FakeTeams, type SignOptions } from './fake-teams.js';
import { teamsUser, type TeamsActivity, type TeamsChannelPlace, type TeamsUser } from './teams-activities.js';

/** The review channel of the tests' team. */
export const REVIEW_CHANNEL: TeamsChannelPlace = { channelId: '19:review-channel@thread.tacv2', teamId: '19:team@thread.tacv2' };

export interface TeamsKit {
  server: RunningServer;
  fake: FakeTeams;
  clock: FakeClock;
  logs: Capture;
  dir: string;
  /** People in the tenant: two experts, a reviewer and someone who reviews nothing. */
  people: { dana: TeamsUser; lee: TeamsUser; rev: TeamsUser; sam: TeamsUser };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON bodies
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** Posts an activity to the messaging endpoint as the Bot Framework does (signed unless `options` says otherwise), then settles. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- invoke answers are arbitrary JSON
  post(activity: TeamsActivity, options?: SignOptions): Promise<{ status: number; body: any }>;
  settle(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A real `expertq serve` with the Teams channel (and whatever else `config` sets up) against the fake
 * Microsoft services: Dana prefers Teams then email, Lee has Teams only; Rev is a Teams reviewer.
 */
export async function startTeamsKit(
  options: { config?: Record<string, unknown>; env?: Record<string, string>; experts?: (people: TeamsKit['people']) => unknown[]; review?: (people: TeamsKit['people']) => Record<string, unknown> } = {},
): Promise<TeamsKit> {
  const fake = await FakeTeams.start();
  const people = { dana: teamsUser('Dana Smith'), lee: teamsUser('Lee Chen'), rev: teamsUser('Rev Iewer'), sam: teamsUser('Sam Other') };
  const experts = options.experts?.(people) ?? [
    { id: 'dana', name: 'Dana Smith', topics: ['billing'], teams: people.dana.aadObjectId, email: 'dana@acme.example', channels: ['teams', 'email'], escalation_to: 'lee' },
    { id: 'lee', name: 'Lee Chen', topics: ['billing'], teams: people.lee.aadObjectId },
  ];
  const dir = mkdtempSync(join(tmpdir(), 'expertq-teams-'));
  const configFile = join(dir, 'service.yaml');
  const teams = { app_id: fake.appId, app_password_env: 'TEAMS_APP_PASSWORD', tenant_id: fake.tenantId, review_channel: REVIEW_CHANNEL.channelId, reviewers: [people.rev.aadObjectId], cloud: fake.cloud, ...((options.config?.teams as object) ?? {}) };
  // `review` names people by their Entra ids, made here: review rules naming Teams reviewers.
  const review = options.review ? { review: options.review(people) } : {};
  writeFileSync(configFile, stringify({ org: { name: 'Acme', timezone: 'UTC' }, experts, ...options.config, ...review, teams, server: { public_url: 'https://expertq.acme.example', allow_private_webhooks: true } }));
  const clock = new FakeClock();
  const { log, logs } = captureLogger();
  const env = { TEAMS_APP_PASSWORD: fake.appPassword, ...options.env };
  let server: RunningServer;
  try {
    server = await startServer({ configPath: configFile, transport: 'auto', env, clock, logger: log, port: 0 });
  } catch (error) {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const settle = () => server.service.idle();
  return {
    server,
    fake,
    clock,
    logs,
    dir,
    people,
    call: (method, path, body) => callJson(server.url, settle, method, path, body),
    async post(activity, signOptions) {
      const answer = await fake.post(`${server.url}/api/v1/teams/messages`, activity, signOptions);
      await settle();
      return answer;
    },
    settle,
    async close() {
      await server.close();
      await fake.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
