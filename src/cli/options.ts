import { InvalidArgumentError } from 'commander';

/** Commander parsers for option values: a bad value is a usage error (exit 2) in plain words. */

export const MAX_LIMIT = 500;

/** `--limit`: a whole number from 1 to 500, as the API's pages allow. */
export function parseLimit(value: string): string {
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1 || Number(value) > MAX_LIMIT) {
    throw new InvalidArgumentError(`--limit must be a whole number from 1 to ${MAX_LIMIT}.`);
  }
  return String(Number(value));
}

/** A text that must say something (not empty, not only spaces). */
export function nonEmpty(what: string): (value: string) => string {
  return (value) => {
    if (value.trim() === '') throw new InvalidArgumentError(`${what} must not be empty.`);
    return value;
  };
}
