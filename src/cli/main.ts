#!/usr/bin/env node
import { CommanderError } from 'commander';
import { ConfigError } from '../config/load-config.js';
import { StorageUnavailable } from '../store/errors.js';
import { CliError } from './cli-error.js';
import { buildProgram } from './program.js';

// A reader that stops early (`expertq queue | head -1`) is not an error of ours: stop quietly.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

/** Exit codes: 0 ok, 1 the operation failed, 2 usage error. */
try {
  await buildProgram().parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    process.exitCode = error.exitCode === 0 ? 0 : 2;
  } else if (error instanceof CliError || error instanceof ConfigError || error instanceof StorageUnavailable) {
    // An empty message: the failure was already printed (as JSON on stdout with --json).
    if (error.message) process.stderr.write(`expertq: ${error.message}\n`);
    process.exitCode = error instanceof CliError ? error.exitCode : 1;
  } else {
    process.stderr.write(`expertq: ${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 1;
  }
}
