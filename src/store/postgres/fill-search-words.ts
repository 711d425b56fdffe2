import type pg from 'pg';
import { questionTokens } from '../../core/match-question.js';
import { requestSearchWords } from '../../core/search-words.js';

/** Requests indexed per statement: a few megabytes of text each. */
const BATCH = 5000;

/**
 * Writes the search words of every request that has none (`search_words` NULL), a batch at a time in
 * id order, found by the partial index `requests_unindexed`. The search migration fills the requests
 * kept before it; every start fills those an older instance inserted during a rolling upgrade (it
 * knows no `search_words`), so once the last old instance is replaced, every request is found.
 */
export async function fillSearchWords(client: pg.ClientBase): Promise<number> {
  let filled = 0;
  for (let after = ''; ; ) {
    const { rows } = await client.query<{ id: string; question: string; asked_question: string | null }>(
      'SELECT id, question, asked_question FROM requests WHERE search_words IS NULL AND id > $1 ORDER BY id LIMIT $2',
      [after, BATCH],
    );
    if (rows.length === 0) return filled;
    await client.query(
      `UPDATE requests SET search_words = array_to_tsvector(string_to_array(v.words, ' '))
       FROM unnest($1::text[], $2::text[]) AS v (id, words) WHERE requests.id = v.id`,
      [rows.map((r) => r.id), rows.map((r) => requestSearchWords(r.question, r.asked_question).join(' '))],
    );
    filled += rows.length;
    after = rows[rows.length - 1]!.id;
  }
}

/**
 * Lists the question words of every active library entry that has none listed, a batch at a time: the
 * entries kept before the word list existed, and those an older instance accepted during a rolling
 * upgrade (it writes no words), so a new request is offered them too. An entry whose question has no
 * word is read again at each start, and has nothing to list.
 */
export async function fillAnswerWords(client: pg.ClientBase): Promise<number> {
  let filled = 0;
  for (let after = ''; ; ) {
    const { rows } = await client.query<{ id: string; topic: string; kind: string; question: string }>(
      `SELECT a.id, a.topic, a.kind, a.question FROM answers a
        WHERE a.status = 'active' AND a.id > $1 AND NOT EXISTS (SELECT 1 FROM answer_words w WHERE w.answer_id = a.id)
        ORDER BY a.id LIMIT $2`,
      [after, BATCH],
    );
    if (rows.length === 0) return filled;
    const words = rows.flatMap((r) => [...questionTokens(r.question)].map((word) => [r.topic, r.kind, word, r.id]));
    await client.query(
      `INSERT INTO answer_words (topic, kind, word, answer_id)
        SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) ON CONFLICT DO NOTHING`,
      [0, 1, 2, 3].map((i) => words.map((w) => w[i])),
    );
    filled += rows.length;
    after = rows[rows.length - 1]!.id;
  }
}

/**
 * Counts the active library entries of each topic and kind that has none counted: those an older
 * instance accepted during a rolling upgrade (it keeps no counts), so a new request on such a topic
 * is offered them too. Pairs already counted are left as they are.
 */
export async function countNewAnswerTopics(client: pg.ClientBase): Promise<void> {
  await client.query(`INSERT INTO answer_topics (topic, kind, active)
    SELECT topic, kind, count(*) FROM answers a
      WHERE status = 'active' AND NOT EXISTS (SELECT 1 FROM answer_topics t WHERE t.topic = a.topic AND t.kind = a.kind)
      GROUP BY topic, kind
    ON CONFLICT (topic, kind) DO NOTHING`);
}
