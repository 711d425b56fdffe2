import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config/load-config.js';
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
