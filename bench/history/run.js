// `npm run bench:history [-- --requests N] [-- --engine sqlite|postgres]`: builds the history through
// the product (or reuses the cached SQLite one), then measures every read route on it. See build.js
// and measure.js. Run `npm run build` first (the bench imports dist/).
import { startPostgres } from '../pg-servers.js';
import { printMachine } from '../report.js';
import { historyArgs, postgresHistory, sqliteHistory } from './build.js';
import { measurePostgres, measureSqlite } from './measure.js';

const { requests, engine } = historyArgs();
printMachine();
if (engine === 'sqlite') {
  await measureSqlite(await sqliteHistory(requests));
} else {
  const pg = await startPostgres();
  try {
    await measurePostgres(pg, await postgresHistory(pg, requests));
  } finally {
    await pg.close();
  }
}
