// `npm run bench:history [-- --requests N] [-- --engine sqlite|postgres [--from-sqlite]]`: builds the
// history through the product (or reuses the cached SQLite one; on PostgreSQL, `--from-sqlite` copies
// that one in: copy-to-pg.js), then measures it against its targets. See build.js and measure.js. Run
// `npm run build` first (the bench imports dist/). Exit code 1 when a target is missed.
// `benchHistory` is also `npm run bench`'s `history` section: 100,000 submissions on SQLite.
import { pathToFileURL } from 'node:url';
import { startPostgres } from '../pg-servers.js';
import { printHeading, printMachine } from '../report.js';
import { historyArgs, postgresHistory, sqliteHistory } from './build.js';
import { measurePostgres, measureSqlite } from './measure.js';
import { cachedPaths } from './setup.js';

/** `npm run bench`'s section: the 100k SQLite history, built once into bench/.cache/ and reused. */
export async function benchHistory(requests = 100_000) {
  printHeading(`history: ${requests.toLocaleString('en-US')} submissions on SQLite`);
  console.log(`cache: ${cachedPaths(requests).db} (built on the first run, ~3.5 min per 100,000 submissions; delete it to build again)`);
  const outcome = await measureSqlite(await sqliteHistory(requests));
  return { name: 'history', ...outcome, summary: `history: ${outcome.summary}` };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { requests, engine, fromSqlite } = historyArgs();
  printMachine();
  let outcome;
  if (engine === 'sqlite') {
    console.log(`cache: ${cachedPaths(requests).db}`);
    outcome = await measureSqlite(await sqliteHistory(requests));
  } else {
    const pg = await startPostgres();
    try {
      outcome = await measurePostgres(pg, await postgresHistory(pg, requests, { fromSqlite }));
    } finally {
      await pg.close();
    }
  }
  // Explicitly: a connection or timer left behind must not keep the process alive.
  process.exit(outcome.ok ? 0 : 1);
}
