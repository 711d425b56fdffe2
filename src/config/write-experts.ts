import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { parseDocument } from 'yaml';
import type { ExpertEntry } from './expert-schema.js';

/**
 * Rewrites only the `experts:` section of the YAML file, keeping every other section and its comments
 * as they were. Atomic: a temp file beside the original is written and fsynced, then renamed over it,
 * so a crash leaves either the old file or the new one, never half of one.
 */
export function writeExpertsSection(file: string, experts: readonly ExpertEntry[]): void {
  const doc = parseDocument(readFileSync(file, 'utf8'));
  const entries = experts.map((e) => {
    const entry: Record<string, unknown> = { id: e.id, name: e.name, topics: [...e.topics] };
    if (e.escalation_to != null) entry.escalation_to = e.escalation_to;
    return entry;
  });
  const existing = doc.get('experts', true);
  const node = doc.createNode(entries);
  // Keep a comment that sat on the section itself (e.g. "# who we ask").
  if (existing && typeof existing === 'object' && 'commentBefore' in existing) {
    node.commentBefore = (existing as { commentBefore?: string | null }).commentBefore ?? null;
  }
  doc.set('experts', node);
  writeAtomically(file, doc.toString());
}

export function writeAtomically(file: string, text: string): void {
  const temp = join(dirname(file), `.${basename(file)}.${process.pid}.tmp`);
  const fd = openSync(temp, 'w', 0o644);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, file);
  const dir = openSync(dirname(file), 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}
