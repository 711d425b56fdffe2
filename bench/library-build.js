// The 100,000-entry answer library the `library` section submits and searches against: curated
// entries on the submit traffic's own topics whose questions never match a submitted one, written
// through the store in one transaction: about 4 s on 2 cores, so it is built afresh each run.
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { curatedEntry } from '../dist/domain/answers.js';
import { newId } from '../dist/ids.js';
import { openSqliteStore } from '../dist/store/sqlite/sqlite-store.js';
import { prng } from './fixtures.js';

/** Words the entries' questions draw on, so the index holds many words, each in many entries. */
export const VOCABULARY = [
  'approval', 'owner', 'deadline', 'template', 'exception', 'rollout', 'vendor', 'contractor', 'region', 'quarter',
  'threshold', 'review', 'sign', 'checklist', 'handbook', 'budget', 'retention', 'rotation', 'access', 'renewal',
  'intern', 'manager', 'customer', 'partner', 'holiday', 'weekend', 'invoice', 'ticket', 'runbook', 'dashboard',
  'export', 'import', 'archive', 'license', 'quota', 'estimate', 'forecast', 'waiver', 'freeze', 'handover',
];

/**
 * The question of entry `n` on `topic`: shares the topic's words with every submitted question ("What
 * is the current <topic> for case <n>?") so the index hands matching real candidates to score, and
 * names a number no submitted question names ("region 7k"), so none is ever close enough to offer.
 */
function entryQuestion(topic, n, rand) {
  const word = () => VOCABULARY[Math.floor(rand() * VOCABULARY.length)];
  return `Who gives ${word()} and ${word()} sign-off on ${topic} for ${word()} region ${n % 97}k?`;
}

/**
 * Writes `dir/library-<count>.db`, a checkpointed SQLite database holding `count` active, fresh
 * library entries spread evenly over `topics` (kind `answer`, curated, by `experts`). Resolves with
 * `{ path, seconds }`.
 */
export async function buildLibrary({ dir, count, topics, experts }) {
  const started = performance.now();
  const path = join(dir, `library-${count}.db`);
  const store = openSqliteStore(path);
  try {
    const rand = prng(7);
    const now = Date.now();
    await store.transaction(async (tx) => {
      for (let n = 0; n < count; n++) {
        const topic = topics[n % topics.length];
        const expert = experts[n % experts.length];
        await tx.answers.insert(
          curatedEntry({
            id: newId('ans'),
            topic,
            kind: 'answer',
            question: entryQuestion(topic, n, rand),
            answer: `Ask the ${topic} owners first; the ${VOCABULARY[n % VOCABULARY.length]} handbook has the details.`,
            structured: null,
            expert,
            by: 'bench',
            now,
            verifiedAt: now,
          }),
        );
      }
    });
    store.db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    await store.close();
  }
  return { path, seconds: (performance.now() - started) / 1000 };
}
