import { closeSync, fchmodSync, fchownSync, fsyncSync, openSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { Document, isMap, isSeq, parseDocument, type Node, type YAMLMap, type YAMLSeq } from 'yaml';
import type { ExpertEntry } from './expert-schema.js';

/**
 * Rewrites the `experts:` section of the YAML file and nothing else: every other section, and every
 * expert whose entry did not change, keeps its exact text (flow lists, comments, alignment). Changed
 * and new entries are written in the style the file already uses for topics. Atomic: a temp file beside
 * the original is written and fsynced, then renamed over it, so a crash leaves the old file or the new one.
 */
export function writeExpertsSection(file: string, experts: readonly ExpertEntry[]): void {
  const before = readFileSync(file, 'utf8');
  const after = replaceExpertsText(before, experts);
  if (after !== before) writeAtomically(file, after);
}

/** The text of `source` with its experts section replaced by `experts`, spliced by source ranges. */
export function replaceExpertsText(source: string, experts: readonly ExpertEntry[]): string {
  const doc = parseDocument(source);
  const root = doc.contents;
  if (!isMap(root)) return `${source}${source.endsWith('\n') || source === '' ? '' : '\n'}experts:\n${renderEntries(experts, 2, false)}`;
  const pair = (root as YAMLMap).items.find((p) => (p.key as { value?: unknown } | null)?.value === 'experts');
  const value = pair?.value as Node | null | undefined;

  if (!pair || !value) {
    const keyEnd = (pair?.key as Node | undefined)?.range?.[1];
    if (keyEnd === undefined) {
      return `${source}${source.endsWith('\n') ? '' : '\n'}experts:\n${renderEntries(experts, 2, false)}`;
    }
    // `experts:` with no value: the entries go on the lines after the key.
    return `${source.slice(0, keyEnd)}:\n${renderEntries(experts, 2, false).replace(/\n$/, '')}${source.slice(lineEnd(source, keyEnd) - 1)}`;
  }
  const seq = value as YAMLSeq;
  if (experts.length === 0) {
    return `${source.slice(0, (pair.key as Node).range![1])}: []\n${source.slice(lineEnd(source, value.range![1]))}`;
  }
  if (!isSeq(value) || seq.flow || seq.items.length === 0) {
    // A flow list (`experts: []`) becomes a block list in place of the value; the rest stays as it was.
    const [start, end] = value.range!;
    return `${source.slice(0, start).replace(/[ \t]*$/, '')}\n${renderEntries(experts, 2, false).replace(/\n$/, '')}${source.slice(end)}`;
  }

  const items = seq.items as Node[];
  const indent = columnOf(source, dashBefore(source, items[0]!.range![0]));
  const flowTopics = items.some((item) => isMap(item) && (item.get('topics', true) as YAMLSeq | undefined)?.flow === true);
  // Each old entry as [leading comment lines, its own lines], keyed by id.
  const old = new Map<string, { lead: string; body: string; entry: unknown }>();
  const sectionStart = lineStart(source, dashBefore(source, items[0]!.range![0]));
  let cursor = sectionStart;
  for (const item of items) {
    const dashLine = lineStart(source, dashBefore(source, item.range![0]));
    const end = lineEnd(source, item.range![2]);
    const id = isMap(item) ? String(item.get('id') ?? '') : '';
    old.set(id, { lead: source.slice(cursor, dashLine), body: source.slice(dashLine, end), entry: item.toJSON() });
    cursor = end;
  }
  const sectionEnd = cursor;

  const parts = experts.map((expert) => {
    const before = old.get(expert.id);
    if (before && sameEntry(before.entry, expert)) return before.lead + before.body;
    return (before?.lead ?? '') + renderEntries([expert], indent, flowTopics);
  });
  return source.slice(0, sectionStart) + parts.join('') + source.slice(sectionEnd);
}

function renderEntries(experts: readonly ExpertEntry[], indent: number, flowTopics: boolean): string {
  const doc = new Document(experts.map(plainEntry));
  if (flowTopics) {
    for (const item of (doc.contents as YAMLSeq).items) ((item as YAMLMap).get('topics', true) as unknown as YAMLSeq).flow = true;
  }
  const pad = ' '.repeat(indent);
  return doc
    .toString({ lineWidth: 0, flowCollectionPadding: false })
    .split('\n')
    .map((line) => (line === '' ? line : pad + line))
    .join('\n');
}

/** Optional entry fields written after the required ones, in this order, only when set. */
const OPTIONAL_FIELDS = ['slack', 'email', 'teams', 'channels', 'timezone', 'working_hours', 'max_open_asks', 'max_asks_per_day'] as const;

function plainEntry(e: ExpertEntry): Record<string, unknown> {
  const entry: Record<string, unknown> = { id: e.id, name: e.name, topics: [...e.topics] };
  if (e.escalation_to != null) entry.escalation_to = e.escalation_to;
  for (const key of OPTIONAL_FIELDS) if (e[key] !== undefined) entry[key] = e[key];
  return entry;
}

function sameEntry(before: unknown, after: ExpertEntry): boolean {
  if (!before || typeof before !== 'object') return false;
  const b = before as Record<string, unknown>;
  const keys = Object.keys(b).filter((k) => b[k] != null);
  const wanted = plainEntry(after);
  return keys.length === Object.keys(wanted).length && JSON.stringify(keys.sort().map((k) => b[k])) === JSON.stringify(Object.keys(wanted).sort().map((k) => wanted[k]));
}

/** The offset of the `-` that opens the sequence item whose content starts at `offset`. */
function dashBefore(source: string, offset: number): number {
  let i = offset - 1;
  while (i >= 0 && /\s/.test(source[i]!)) i--;
  return source[i] === '-' ? i : offset;
}

function lineStart(source: string, offset: number): number {
  return source.lastIndexOf('\n', offset - 1) + 1;
}

/** The start of the line after the one holding `offset - 1` (an offset already at a line start stays). */
function lineEnd(source: string, offset: number): number {
  if (offset === 0 || source[offset - 1] === '\n') return offset;
  const next = source.indexOf('\n', offset);
  return next === -1 ? source.length : next + 1;
}

function columnOf(source: string, offset: number): number {
  return offset - lineStart(source, offset);
}

/**
 * Replaces the file's text atomically. A symlinked config is written where the link points (the link
 * stays), and the new file keeps the old one's mode and, where the process may set it, its owner, so
 * a `0640 root:expertq` config does not come back world-readable.
 */
export function writeAtomically(path: string, text: string): void {
  const file = realpathSync(path);
  const old = statSync(file);
  const temp = join(dirname(file), `.${basename(file)}.${process.pid}.tmp`);
  const fd = openSync(temp, 'w', old.mode & 0o7777);
  try {
    fchmodSync(fd, old.mode & 0o7777); // the mode given to open is masked by the umask
    try {
      fchownSync(fd, old.uid, old.gid);
    } catch {
      // Only root may give a file away; the service user's own file keeps its owner anyway.
    }
    writeSync(fd, text);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  closeSync(fd);
  renameSync(temp, file);
  const dir = openSync(dirname(file), 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}
