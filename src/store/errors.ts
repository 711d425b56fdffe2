/**
 * Errors every store engine throws in its own driver's place, so that nothing outside `store/` needs
 * to know which database runs. Each keeps the driver's message (operators read it in logs and in
 * `/readyz`) and the driver's error as `cause`.
 */

/** Why the database cannot take the write now. */
export type StorageUnavailableCode =
  | 'full' // the disk (or the file's allowed size) is full
  | 'read_only' // the file or its file system may not be written
  | 'io_error' // reading or writing the file failed
  | 'busy' // another process holds the write lock
  | 'cannot_open' // the file cannot be opened
  | 'corrupt'; // the file is damaged or is not a database

/**
 * The storage failed, not the operation: nothing of it was written. Work that fails so is not at
 * fault and must not be judged for it: it is retried, and an API caller is told to try again.
 */
export class StorageUnavailable extends Error {
  override readonly name = 'StorageUnavailable';

  constructor(
    readonly code: StorageUnavailableCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A write collided with a row that already exists under a key that must be unique. */
export class Conflict extends Error {
  override readonly name = 'Conflict';
  readonly code = 'conflict' as const;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * A transaction that routed on hints (`AskRepository.useHints`) read the experts it asked again under
 * their locks, and a decision no longer holds (one was muted, set away or reached a cap meanwhile).
 * Nothing is wrong with the work: the engine runs it again, reading those experts anew.
 */
export class StaleHints extends Error {
  override readonly name = 'StaleHints';

  constructor(readonly experts: readonly string[]) {
    super(`routed on states of ${experts.join(', ')} that changed meanwhile`);
  }
}
