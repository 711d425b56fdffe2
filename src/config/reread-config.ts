import { readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';
import { expertListSchema, type ExpertEntry } from './expert-schema.js';
import { ConfigError, formatIssues, parseConfig, unreadableConfig, type Config } from './load-config.js';

/** The config file read again while the server runs: its experts, and the whole file as at start. */
export interface RereadConfig {
  /** The `experts:` section, checked by the same schema as a `PUT /experts` body. */
  experts: ExpertEntry[];
  /** The whole file parsed as at start, or why a start on it would fail. */
  whole: Config | ConfigError;
}

/**
 * Reads the config file again for a reload. Throws ConfigError, naming the file and the problem, when
 * the file cannot be read, is not YAML, or its `experts:` section is invalid; problems elsewhere in
 * the file do not stop the experts from being read (they are returned in `whole`).
 */
export function rereadConfig(file: string): RereadConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw unreadableConfig(file, error as NodeJS.ErrnoException);
  }
  const doc = parseDocument(text, { prettyErrors: true });
  if (doc.errors.length > 0) {
    throw new ConfigError(`Invalid YAML in ${file}:\n${doc.errors.map((e) => `  ${e.message}`).join('\n')}`);
  }
  const root: unknown = doc.toJS() ?? {};
  if (typeof root !== 'object' || root === null || Array.isArray(root)) {
    throw new ConfigError(`Invalid configuration in ${file}:\n  (top level): must be a map of sections`);
  }
  // An empty file is a write caught half-way (a truncate, then the new text), not "no experts".
  if (Object.keys(root).length === 0) throw new ConfigError(`The configuration file ${file} is empty.`);
  const parsed = expertListSchema.safeParse((root as Record<string, unknown>).experts ?? []);
  if (!parsed.success) {
    throw new ConfigError(formatIssues(file, parsed.error.issues.map((issue) => ({ ...issue, path: ['experts', ...issue.path] }))));
  }
  let whole: Config | ConfigError;
  try {
    whole = parseConfig(text, file);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    whole = error;
  }
  return { experts: parsed.data, whole };
}
