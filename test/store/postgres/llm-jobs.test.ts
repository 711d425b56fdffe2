import { describe, expect, it } from 'vitest';
import { llmJob, T0 } from '../records.js';
import { aLockWaiter, gate, insertRequestRow, useTwoInstances } from './two-instances.js';

const LEASE = 15_000;
const claim = (owner: string, limit: number) => ({ now: T0, owner, leaseUntil: T0 + LEASE, limit, exclude: [] });

describe('PostgreSQL LLM jobs claimed by two instances', () => {
  const s = useTwoInstances();

  it('a claim skips the jobs another instance is claiming, without waiting for it to commit', async () => {
    await insertRequestRow(s.a, 'req_1');
    await s.a.transaction(async (tx) => {
      for (const [i, id] of ['job_1', 'job_2', 'job_3'].entries()) await tx.llmJobs.insert(llmJob(id, 'req_1', { created_at: T0 + i }));
    });
    const claimed = gate<string[]>();
    const commit = gate();
    const first = s.a.transaction(async (tx) => {
      claimed.open((await tx.llmJobs.claim(claim('inst_a', 2))).map((j) => j.id));
      await commit.promise;
    });
    expect(await claimed.promise).toEqual(['job_1', 'job_2']);

    const second = s.b.transaction((tx) => tx.llmJobs.claim(claim('inst_b', 10)));
    const outcome = await Promise.race([second.then((jobs) => jobs.map((j) => j.id)), aLockWaiter(s.b)]);
    commit.open();
    await first;

    expect(outcome).toEqual(['job_3']);
    expect((await s.b.llmJobs.get('job_3'))?.attempts).toBe(1);
    expect(await s.b.transaction((tx) => tx.llmJobs.claim(claim('inst_b', 10)))).toEqual([]);
  });
});
