/**
 * The statements of the answer library the same in both engines (`?` placeholders: `pgStatements`).
 * Text search, the words of an entry and refreshing differ (SQLite's FTS5 table, PostgreSQL's tsvector).
 */
export const ANSWERS = {
  forget: 'DELETE FROM answer_words WHERE answer_id = ?',
  countOut: 'UPDATE answer_topics SET active = active - 1 WHERE topic = ? AND kind = ?',
  activeTopics: 'SELECT topic, kind FROM answer_topics WHERE active > 0',
  countReuse: 'UPDATE answers SET reuse_count = reuse_count + 1 WHERE id = ?',
  retire: `UPDATE answers SET status = 'retired', retired_reason = ?, retired_by = ?, retired_at = ? WHERE id = ? AND status = 'active' RETURNING topic, kind`,
} as const;
