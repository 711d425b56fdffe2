import type Database from 'better-sqlite3';

interface Progress {
  topic: string;
  answerId: string;
  end: number;
}

/**
 * Whether some library entry kept from before the word list still waits for its words: one row read
 * until the filling is done, then false for good without reading.
 */
export function unlistedEntriesRemain(db: Database.Database): () => boolean {
  const progress = db.prepare('SELECT fill_end AS end FROM answer_words_progress');
  let done = false;
  return () => {
    done ||= (progress.get() as { end: number }).end === 0;
    return !done;
  };
}

/**
 * Lists the words of the library entries kept before the word list existed (migration 22), a slice
 * at a time, after start, in the order of `answers_topic`: a lookup reads the entries not reached yet
 * directly (`UNFILLED_ENTRIES`) until the filling is done. An entry retired before its turn gets no
 * words; one written since the upgrade got its own when written.
 */
export class SqliteAnswerWordsFill {
  private readonly progress: Database.Statement;
  private readonly sliceEnd: Database.Statement;
  private readonly put: Database.Statement;
  private readonly advance: Database.Statement;
  /** Whether some kept entry still waits for its words. Once false, false for good. */
  readonly pending: () => boolean;

  constructor(db: Database.Database) {
    this.progress = db.prepare('SELECT topic, answer_id AS answerId, fill_end AS end FROM answer_words_progress');
    this.sliceEnd = db.prepare('SELECT topic, id FROM answers WHERE (topic, id) > (?, ?) ORDER BY topic, id LIMIT 1 OFFSET ?');
    // The upper bound defaults to past every topic: the last slice takes all that is left.
    this.put = db.prepare(`INSERT OR IGNORE INTO answer_words (topic, kind, word, answer_id)
      SELECT a.topic, a.kind, w.value, a.id FROM answers a, json_each(expertq_question_words(a.question)) w
      WHERE (a.topic, a.id) > (@topic, @answerId) AND (@lastTopic IS NULL OR (a.topic, a.id) <= (@lastTopic, @lastId))
        AND a.rowid <= @end AND a.status = 'active'`);
    this.advance = db.prepare('UPDATE answer_words_progress SET topic = ?, answer_id = ?, fill_end = ?');
    this.pending = unlistedEntriesRemain(db);
  }

  /** Lists the words of the next `span` kept entries; returns whether any remain. */
  fillPending(span: number): boolean {
    const at = this.progress.get() as Progress;
    if (at.end === 0) return false;
    const last = this.sliceEnd.get(at.topic, at.answerId, span - 1) as { topic: string; id: string } | undefined;
    this.put.run({ ...at, lastTopic: last?.topic ?? null, lastId: last?.id ?? null });
    if (last === undefined) this.advance.run('', '', 0);
    else this.advance.run(last.topic, last.id, at.end);
    return last !== undefined;
  }
}

/**
 * The active entries of a topic and kind (two parameters) the filling has not reached, with how many
 * of the query's words (a space-separated parameter, first) each question holds: what `answer_words`
 * will say of them once filled.
 */
export const UNFILLED_ENTRIES = `SELECT a.id AS answer_id, expertq_shared_words(a.question, ?) AS shared FROM answer_words_progress p
  JOIN answers a ON a.topic = ? AND a.kind = ? AND a.status = 'active' AND a.rowid <= p.fill_end AND (a.topic, a.id) > (p.topic, p.answer_id)`;
