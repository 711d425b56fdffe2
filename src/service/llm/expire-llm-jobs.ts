import { formatDuration } from '../../config/durations.js';
import type { LlmJobRecord } from '../../domain/records.js';
import type { Tx } from '../../store/store.js';
import { type Engine, type Intake, withLeasedAsks, type AskSender } from '../engine/index.js';
import { finishDraft, type DraftOutcome } from './finish-llm-job.js';
import { finishMatch, type MatchOutcome } from './finish-match.js';
import { guarded } from '../routing/index.js';

/** Jobs finished per transaction when their deadlines pass, and at most per tick. */
const EXPIRE_BATCH = 500;
const EXPIRE_PER_TICK = 5_000;

/**
 * The deadlines of the work a request waits for before anyone is asked, both `llm.timeout` after it
 * began: a draft still pending falls back and its asks go out with the raw question; a judgement of a
 * library entry still pending falls back to the lexical rule. Runs each tick, so neither a slow model
 * nor a restart after downtime leaves a request waiting; a call still in flight for it is recorded
 * when it returns, and not used. The asks a batch places are written leased to `sender` and handed to
 * it once the batch commits, as a submit's are (no claim to find them), with where each stands.
 */
export async function expireLlmJobs(engine: Intake & Pick<Engine, 'store'>, now: number, sender: AskSender): Promise<number> {
  const timeout = formatDuration(engine.llm!.timeoutMs);
  const outcomes = {
    draft: { reply: null, result: { ok: false, error: `no draft within llm.timeout (${timeout})` } } satisfies DraftOutcome,
    match: { reply: null, result: { ok: false, error: `no judgement within llm.timeout (${timeout})` } } satisfies MatchOutcome,
  };
  const finish = (tx: Tx, job: LlmJobRecord) =>
    job.stage === 'match' ? finishMatch(engine, tx, job, outcomes.match, now) : finishDraft(engine, tx, job, outcomes.draft, now);
  // One transaction per batch without a savepoint per job; if a job throws, the batch is redone
  // one job at a time (`guarded`), so only that request fails (reason `error`) and the rest go on.
  const batch = async (oneByOne: boolean) => {
    // A job redone alone may have rolled its asks back (`guarded`).
    const { value: jobs } = await withLeasedAsks(
      engine.store,
      sender,
      async (tx) => {
        const due = await tx.llmJobs.expiredDrafts(now, EXPIRE_BATCH);
        for (const job of due) {
          if (!oneByOne) await finish(tx, job);
          else if (!(await guarded(engine, tx, job.request_id, now, (inner) => finish(inner, job)))) await tx.llmJobs.finish(job.id, now);
        }
        return due.length;
      },
      oneByOne,
    );
    return jobs;
  };
  let handled = 0;
  while (handled < EXPIRE_PER_TICK) {
    let jobs: number;
    try {
      jobs = await batch(false);
    } catch (err) {
      engine.log.warn({ err }, 'a batch of expired LLM jobs failed; redoing it one request at a time');
      jobs = await batch(true);
    }
    handled += jobs;
    if (jobs < EXPIRE_BATCH) break;
  }
  if (handled > 0) engine.log.warn({ jobs: handled, timeout }, 'LLM work fell back at its deadline: drafts go out with the raw question, judgements to the lexical rule');
  return handled;
}
