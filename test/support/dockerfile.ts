import { readFileSync } from 'node:fs';

/** One instruction of a Dockerfile, with its line number for messages. */
export interface Instruction {
  line: number;
  keyword: string;
  /** `--name=value` flags (COPY --from, HEALTHCHECK --interval, …). */
  flags: Record<string, string>;
  /** The rest after the flags: the shell text for RUN, the words or JSON array otherwise. */
  text: string;
}

export interface Stage {
  name: string;
  image: string;
  instructions: Instruction[];
}

/**
 * The stages of a Dockerfile as Docker reads them: comments and blank lines dropped, lines ending in
 * a backslash joined, each instruction split into its keyword, its `--flags` and the rest. Only what
 * this project's Dockerfile uses is understood; anything else is an error naming the line, so the
 * recipe test fails instead of silently skipping a step.
 */
export function parseDockerfile(file: string): Stage[] {
  const lines = readFileSync(file, 'utf8').split('\n');
  const stages: Stage[] = [];
  for (let i = 0; i < lines.length; i++) {
    const start = i;
    let text = lines[i]!.trim();
    if (text === '' || text.startsWith('#')) continue;
    while (text.endsWith('\\') && i + 1 < lines.length) text = `${text.slice(0, -1).trimEnd()} ${lines[++i]!.trim()}`;
    const [, keyword = '', rest = ''] = /^(\S+)\s*(.*)$/.exec(text) ?? [];
    const instruction = withFlags({ line: start + 1, keyword: keyword.toUpperCase(), flags: {}, text: rest });
    if (instruction.keyword === 'FROM') {
      const [, image = '', name] = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(instruction.text) ?? [];
      stages.push({ name: name ?? String(stages.length), image, instructions: [] });
      continue;
    }
    const stage = stages.at(-1);
    if (!stage) throw new Error(`Dockerfile line ${start + 1}: ${instruction.keyword} before any FROM`);
    stage.instructions.push(instruction);
  }
  return stages;
}

function withFlags(instruction: Instruction): Instruction {
  let text = instruction.text;
  for (let flag = /^--([a-z-]+)=(\S+)\s+/.exec(text); flag; flag = /^--([a-z-]+)=(\S+)\s+/.exec(text)) {
    instruction.flags[flag[1]!] = flag[2]!;
    text = text.slice(flag[0].length);
  }
  return { ...instruction, text };
}

/** The words of an instruction: its JSON array (exec form) or its whitespace-separated words. */
export function words(instruction: Pick<Instruction, 'text' | 'line'>): string[] {
  if (!instruction.text.startsWith('[')) return instruction.text.split(/\s+/).filter(Boolean);
  const parsed: unknown = JSON.parse(instruction.text);
  if (!Array.isArray(parsed) || !parsed.every((w) => typeof w === 'string')) throw new Error(`Dockerfile line ${instruction.line}: not an array of strings`);
  return parsed;
}

/** `ENV A=1 B="two words"` (or the old `ENV A value`) as name → value. */
export function envPairs(instruction: Instruction): Record<string, string> {
  const pairs: Record<string, string> = {};
  if (!instruction.text.includes('=')) {
    const [name = '', ...value] = instruction.text.split(/\s+/);
    pairs[name] = value.join(' ');
    return pairs;
  }
  for (const match of instruction.text.matchAll(/(\w+)=("(?:[^"\\]|\\.)*"|\S*)/g)) {
    const raw = match[2]!;
    pairs[match[1]!] = raw.startsWith('"') ? (JSON.parse(raw) as string) : raw;
  }
  return pairs;
}

/** The command of `HEALTHCHECK [--options] CMD [...]`. */
export function healthcheckCommand(instruction: Instruction): string[] {
  const match = /^CMD\s+(.*)$/.exec(instruction.text);
  if (!match) throw new Error(`Dockerfile line ${instruction.line}: HEALTHCHECK without CMD`);
  return words({ text: match[1]!, line: instruction.line });
}

/** The one instruction of a keyword in a stage (the last one wins, as in Docker), or an error. */
export function last(stage: Stage, keyword: string): Instruction {
  const found = stage.instructions.filter((i) => i.keyword === keyword).at(-1);
  if (!found) throw new Error(`stage ${stage.name} has no ${keyword}`);
  return found;
}
