import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, isAbsolute, join } from 'node:path';
import { parseDocument } from 'yaml';
import { envPairs, words, type Instruction, type Stage } from './dockerfile.js';

/**
 * A Dockerfile stage played on this machine without a container engine: the stage's file system is a
 * folder (`root`), container paths are taken under it, WORKDIR/ENV/COPY are applied as Docker applies
 * them and RUN lines run with `sh -c` in the working folder. What cannot run here is named, not
 * skipped quietly: see `runStep`.
 */
export class StageRun {
  workdir = '/';
  env: Record<string, string> = {};
  user = 'root';
  volumes: string[] = [];
  /** What happened to each RUN line: "ran", or how it was stood in for. */
  readonly log: string[] = [];

  constructor(
    readonly stage: Stage,
    readonly root: string,
    private readonly context: string,
    private readonly stages: ReadonlyMap<string, StageRun>,
    private readonly installedModules: string,
  ) {
    mkdirSync(root, { recursive: true });
  }

  /** A path inside the container, as a path on this machine. */
  path(inContainer: string): string {
    return join(this.root, isAbsolute(inContainer) ? inContainer : join(this.workdir, inContainer));
  }

  /** The environment a process in this stage gets: ENV and `extra`, container paths taken under `root`. */
  processEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
    const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => KEEP_ENV.includes(name)));
    const inside = Object.entries({ ...this.env, ...extra }).map(([name, value]) => [name, value.startsWith('/') ? join(this.root, value) : value]);
    return { ...base, ...Object.fromEntries(inside) };
  }

  /** Plays every instruction of the stage in order. */
  play(): void {
    for (const instruction of this.stage.instructions) this.step(instruction);
  }

  private step(instruction: Instruction): void {
    switch (instruction.keyword) {
      case 'WORKDIR':
        this.workdir = isAbsolute(instruction.text) ? instruction.text : join(this.workdir, instruction.text);
        mkdirSync(this.path('.'), { recursive: true });
        return;
      case 'ENV':
        Object.assign(this.env, envPairs(instruction));
        return;
      case 'USER':
        this.user = instruction.text;
        return;
      case 'VOLUME':
        this.volumes.push(...words(instruction));
        for (const volume of words(instruction)) mkdirSync(this.path(volume), { recursive: true });
        return;
      case 'COPY':
        return this.copy(instruction);
      case 'RUN':
        return this.run(instruction);
      case 'EXPOSE':
      case 'CMD':
      case 'HEALTHCHECK':
        return; // read by the test when it starts the stage
      default:
        throw new Error(`Dockerfile line ${instruction.line}: the recipe test does not know ${instruction.keyword}; teach test/support/container-stage.ts`);
    }
  }

  private copy(instruction: Instruction): void {
    const parts = words(instruction);
    const dest = parts.pop()!;
    const from = instruction.flags.from;
    const source = from === undefined ? null : this.stages.get(from);
    if (from !== undefined && !source) throw new Error(`Dockerfile line ${instruction.line}: no stage named ${from} before this one`);
    for (const src of parts) {
      if (/[*?[]/.test(src)) throw new Error(`Dockerfile line ${instruction.line}: wildcards in COPY are not understood by the recipe test`);
      // COPY --from takes paths in the other stage's file system; a plain COPY takes them in the context.
      const at = source ? join(source.root, src) : join(this.context, src);
      if (!existsSync(at)) throw new Error(`Dockerfile line ${instruction.line}: COPY ${src}: no such file ${source ? `in stage ${from}` : 'in the build context (.dockerignore?)'}`);
      const target = this.path(dest);
      if (statSync(at).isDirectory()) {
        // Hard links (quick, and no space): nothing here writes into a copied file in place.
        mkdirSync(target, { recursive: true });
        execFileSync('cp', ['-a', '--link', '--remove-destination', `${at}/.`, target]);
      } else {
        const file = dest.endsWith('/') ? join(target, basename(src)) : target;
        mkdirSync(join(file, '..'), { recursive: true });
        copyFileSync(at, file);
      }
    }
  }

  private run(instruction: Instruction): void {
    const command = instruction.text;
    const began = performance.now();
    const took = () => `${((performance.now() - began) / 1000).toFixed(1)} s`;
    const standIn = this.standIn(command);
    if (standIn !== null) {
      this.log.push(`line ${instruction.line}: ${command} → ${standIn} (${took()})`);
      return;
    }
    const result = spawnSync('sh', ['-c', command], { cwd: this.path('.'), env: this.processEnv(), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    if (result.status !== 0) {
      throw new Error(`Dockerfile line ${instruction.line}: RUN ${command} exited ${result.status}\n${result.stdout.slice(-3000)}\n${result.stderr.slice(-3000)}`);
    }
    this.log.push(`line ${instruction.line}: ${command} → ran (${took()})`);
  }

  /**
   * The RUN lines not run as written, and what is done instead (null: run it as written):
   * - `apt-get …` installs system packages into the image; this machine has its own toolchain.
   * - `npm ci` (with the dev dependencies) is stood in for by hard links to the repository's installed
   *   node_modules, installed from the same package-lock.json, then npm's own `prepare` step, which is
   *   what `npm ci` runs after installing: downloading and compiling again would take minutes.
   * - In the runtime stage, only `mkdir -p` and `chown` of container paths, done without privileges.
   * Anything else in the runtime stage is an error, so a new step cannot pass untried.
   */
  private standIn(command: string): string | null {
    if (/^apt-get\b/.test(command)) return 'skipped: system packages (this machine has python3, make and g++)';
    if (/^npm ci\b/.test(command) && !/--omit[= ]dev/.test(command)) {
      this.linkInstalledModules();
      const prepare = spawnSync('npm', ['run', 'prepare', '--if-present'], { cwd: this.path('.'), env: this.processEnv(), encoding: 'utf8' });
      if (prepare.status !== 0) throw new Error(`npm ci's prepare step failed (exit ${prepare.status}):\n${prepare.stdout}\n${prepare.stderr}`);
      return "hard links to the repository's node_modules, then npm run prepare (as npm ci runs it)";
    }
    if (this.stage.name !== 'runtime' && this.stage.name !== 'build') throw new Error(`unknown stage ${this.stage.name}`);
    if (this.stage.name === 'build') return null;
    for (const part of command.split('&&').map((p) => p.trim())) {
      const mkdir = /^mkdir -p ((?:\/\S+\s*)+)$/.exec(part);
      const chown = /^chown (\S+) ((?:\/\S+\s*)+)$/.exec(part);
      if (mkdir) for (const dir of mkdir[1]!.trim().split(/\s+/)) mkdirSync(this.path(dir), { recursive: true });
      else if (!chown) throw new Error(`the recipe test cannot play "${part}" of the runtime stage; teach test/support/container-stage.ts`);
    }
    return 'folders made under the stage root (ownership is not changed here: no root)';
  }

  /** The repository's node_modules as hard links (fast, no space), with npm's own files copied, not linked. */
  private linkInstalledModules(): void {
    const target = this.path('node_modules');
    rmSync(target, { recursive: true, force: true });
    execFileSync('cp', ['-al', realpathSync(this.installedModules), target]);
    // npm rewrites this file in place: a hard link would change the repository's copy.
    const hidden = join(target, '.package-lock.json');
    if (existsSync(hidden)) {
      const text = readFileSync(hidden);
      rmSync(hidden);
      writeFileSync(hidden, text);
    }
  }
}

/** What a process in a stage inherits from this machine: only what finds programs and npm's cache. */
const KEEP_ENV = ['PATH', 'HOME', 'TMPDIR', 'LANG'];

/** Re-roots `storage.path` of a config file inside a stage, as a container's mount namespace would. */
export function rerootConfig(file: string, root: string): void {
  const doc = parseDocument(readFileSync(file, 'utf8'));
  const path = doc.getIn(['storage', 'path']);
  if (typeof path === 'string' && isAbsolute(path)) doc.setIn(['storage', 'path'], join(root, path));
  writeFileSync(file, doc.toString());
}
