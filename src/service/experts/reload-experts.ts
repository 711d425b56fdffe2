import { isDeepStrictEqual } from 'node:util';
import { ConfigError, type Config } from '../../config/load-config.js';
import { rereadConfig } from '../../config/reread-config.js';
import { watchFile, type FileWatch } from '../../config/watch-file.js';
import { AppError } from '../../errors.js';
import { checkFallbacks, installExperts, sameExperts, warnAboutChannels } from './experts.js';
import type { Engine, Roster } from '../engine/index.js';

/** What a reload did: replaced the registry, found it already current, or kept it (the file is invalid). */
export type ReloadOutcome = 'reloaded' | 'unchanged' | 'invalid';

/** What started a reload, for the log. */
export type ReloadTrigger = 'file changed' | 'SIGHUP' | 'request';

/** The sections only a restart applies: everything but `experts:` (and what is derived from the path). */
function restartSections(config: Config): Record<string, unknown> {
  const { experts: _experts, file: _file, storagePath: _storagePath, ...rest } = config;
  return rest;
}

/**
 * Keeps the running registry in step with the config file: `experts:` is read again when the file
 * changes (see `watch`) or on `reload()` (SIGHUP), validated as `PUT /experts` validates a body, and
 * swapped in as `PUT /experts` swaps it. An invalid file is logged and the running registry kept.
 * Other sections are compared with the last version seen: a change there is logged as needing a restart.
 */
export class ExpertsReloader {
  private sections: Record<string, unknown>;
  private watch: FileWatch | null = null;

  constructor(
    private readonly engine: Roster & Pick<Engine, 'log' | 'channels'>,
    private readonly file: string,
    startedWith: Config,
  ) {
    this.sections = restartSections(startedWith);
  }

  /** Reads the file now and applies its `experts:` when they are valid and differ from the registry. */
  reload(trigger: ReloadTrigger): ReloadOutcome {
    const { engine, file } = this;
    let experts;
    let whole;
    try {
      ({ experts, whole } = rereadConfig(file));
      checkFallbacks(engine.config, experts);
    } catch (error) {
      if (!(error instanceof ConfigError) && !(error instanceof AppError)) throw error;
      engine.log.error({ file, trigger, problem: problemOf(error) }, `the experts were not reloaded from ${file}; the running registry is kept: ${problemOf(error)}`);
      return 'invalid';
    }
    this.noteOtherSections(whole, trigger);
    if (sameExperts(engine.experts, experts)) {
      // What PUT /experts just wrote, or an edit elsewhere in the file.
      engine.log.debug({ file, trigger }, 'config file read again; the experts are unchanged');
      return 'unchanged';
    }
    installExperts(engine, experts);
    warnAboutChannels(engine, experts);
    engine.log.info({ file, trigger, experts: experts.length }, `expert registry reloaded from ${file}: ${experts.length} experts`);
    return 'reloaded';
  }

  /** Starts watching the file; changes reload it. */
  start(onWatchError: (error: Error) => void): void {
    this.watch ??= watchFile(this.file, () => this.reload('file changed'), { onError: onWatchError });
  }

  /** Stops watching (shutdown): nothing keeps running after it. */
  close(): void {
    this.watch?.close();
    this.watch = null;
  }

  private noteOtherSections(whole: Config | ConfigError, trigger: ReloadTrigger): void {
    const { engine, file } = this;
    if (whole instanceof ConfigError) {
      engine.log.warn({ file, trigger, problem: whole.message }, `other sections of ${file} are invalid: the server keeps running with the settings it started with, but would not start on this file`);
      return;
    }
    const next = restartSections(whole);
    const changed = Object.keys({ ...this.sections, ...next }).filter((key) => !isDeepStrictEqual(this.sections[key], next[key]));
    this.sections = next;
    if (changed.length > 0) {
      engine.log.warn({ file, trigger, sections: changed }, `changes to ${changed.join(', ')} in ${file} take effect only after a restart; only experts are reloaded`);
    }
  }
}

function problemOf(error: ConfigError | AppError): string {
  if (error instanceof AppError && error.details) return `${error.message} ${error.details.map((d) => `${d.path}: ${d.message}`).join('; ')}`;
  return error.message;
}
