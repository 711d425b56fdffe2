// Section: the email channel. (1) Submit throughput with email configured (default pace) against the console, the same
// real server wiring (createService + buildApp), alternated over two rounds: sending is after commit and
// off the request path, so email must keep at least 0.9 of the console's rate. (2) Replies read from an
// IMAP mailbox (a real Dovecot): 1,000 replies filed in the mailbox become 1,000 proposals within 60 s on
// SQLite; (3) with two instances on one PostgreSQL database reading the same mailbox, none twice.
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout } from 'node:timers';
import { fileURLToPath } from 'node:url';
import { ImapFlow } from 'imapflow';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { buildApp } from '../dist/app.js';
import { createService } from '../dist/create-service.js';
import { createLogger } from '../dist/log.js';
import { HAVE_DOVECOT, startDovecot } from '../test/support/dovecot-server.mjs';
import { generateExperts, topicPool } from './fixtures.js';
import { benchSeconds, CONNECTIONS, runSubmitLoad } from './load.js';
import { LOAD_COLUMNS, loadRow, num, printHeading, printRows } from './report.js';
import { discardStream, writeConfig } from './servers.js';
import { mean, problemsOf, UNCAPPED } from './submit.js';
import { startPostgres, URL_ENV } from './pg-servers.js';

const EXPERT_COUNT = 1000;
const MIN_EMAIL_RATIO = 0.9;
const ROUNDS = 2;
const REPLIES = 1000;
const MAX_INBOUND_S = 60;
const FROM = 'Bench expertq <expertq@bench.example>';
/** The highest `email.max_per_minute`: a mail every millisecond, as fast as the SMTP pool goes. */
const UNPACED = 60_000;

/** The mail server, in its own process. */
async function startSmtpSink() {
  const child = fork(fileURLToPath(new URL('./smtp-child.js', import.meta.url)), { stdio: 'ignore' });
  const reply = () => new Promise((resolve) => child.once('message', resolve));
  const { port } = await reply();
  return {
    url: `smtp://127.0.0.1:${port}`,
    /** Mails taken so far, and the CPU milliseconds the mail server used. */
    async count() {
      child.send('count');
      return await reply();
    },
    close: () => new Promise((resolve) => {
      child.once('exit', resolve);
      child.send('close');
    }),
  };
}

/** The real server on `channel` (console, or email to `smtpUrl` and, with `imapUrl`, replies read from it). */
async function startServer({ channel, experts, smtpUrl, imapUrl, databaseUrl, query, maxPerMinute }) {
  const dir = mkdtempSync(join(tmpdir(), 'expertq-bench-email-'));
  const pace = maxPerMinute ? { max_per_minute: maxPerMinute } : {};
  const email = channel === 'email' ? { email: { smtp_url_env: 'SMTP_URL', from: FROM, ...pace, ...(imapUrl ? { imap_url_env: 'IMAP_URL', imap_poll: '1s' } : {}) } } : {};
  const storage = databaseUrl ? { storage: { url_env: URL_ENV } } : {};
  const configFile = writeConfig(dir, { experts, defaults: UNCAPPED, server: { public_url: 'https://expertq.bench.example' }, ...email, ...storage });
  const log = createLogger(discardStream(), 'warn');
  const expertq = await createService({
    config: configFile,
    transport: channel === 'email' ? 'channels' : 'console',
    out: discardStream(),
    logger: log,
    env: { SMTP_URL: smtpUrl ?? '', IMAP_URL: imapUrl ?? '', [URL_ENV]: databaseUrl ?? '' },
    watchConfig: false,
  });
  const app = await buildApp({ service: expertq.service, credentials: [], logger: log, bodyLimit: expertq.config.server.body_limit });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  const store = expertq.service.store;
  // One read of the database, on either engine.
  const rows = async (sql) => (query ? query(sql) : store.db.prepare(sql).all());
  const count = async (sql) => Object.fromEntries((await rows(sql)).map((r) => [r.k, Number(r.n)]));
  return {
    url,
    rows,
    /** Resolves once every message has gone out. */
    settle: () => expertq.service.idle(),
    /** Counts once the sends under way finished; mail still waiting its turn is given up and stays pending. */
    async stats() {
      expertq.service.messages.stop();
      await expertq.service.idle();
      return {
        requests: await count('SELECT status AS k, COUNT(*) AS n FROM requests GROUP BY status'),
        messages: await count('SELECT state AS k, COUNT(*) AS n FROM messages GROUP BY state'),
      };
    },
    async close() {
      await app.close();
      await expertq.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function measure(server, seconds) {
  try {
    const result = await runSubmitLoad({ url: server.url, seconds });
    return { result, stats: await server.stats() };
  } finally {
    await server.close();
  }
}

/** One email run, with what the mail server took and the CPU both sides used. */
async function measureEmail(smtp, experts, seconds, maxPerMinute) {
  const before = await smtp.count();
  const cpuBefore = process.cpuUsage();
  const run = await measure(await startServer({ channel: 'email', experts, smtpUrl: smtp.url, maxPerMinute }), seconds);
  const after = await smtp.count();
  const cpu = process.cpuUsage(cpuBefore);
  return { ...run, mailed: after.count - before.count, sinkCpuS: (after.cpuMs - before.cpuMs) / 1000, serverCpuS: (cpu.user + cpu.system) / 1e6 };
}

/** Problems of an email run: every stored request's ask was mailed or waits its turn in the outbox, and the mail server took each mail sent. */
function emailProblems(name, run) {
  const sent = run.stats.messages.sent ?? 0;
  const waiting = run.stats.messages.pending ?? 0;
  const problems = problemsOf(name, { result: run.result, stats: { requests: run.stats.requests, messages: { sent: sent + waiting } } });
  if (run.mailed !== sent) problems.push(`${name}: ${sent} messages sent but the mail server took ${run.mailed}`);
  console.log(`${name}: ${num(sent)} asks mailed during the run, ${num(waiting)} waiting their turn in the outbox; CPU seconds: expertq ${run.serverCpuS.toFixed(1)}, the mail server ${run.sinkCpuS.toFixed(1)} (on the same 2 cores)`);
  return problems;
}

/**
 * Part 1: submits with email configured (the default pace, 600 mails a minute) against the console,
 * alternated; then one run unpaced (60,000 a minute), reported for what sending every mail at once
 * costs the API, not judged.
 */
async function submitThroughput(experts, seconds) {
  const smtp = await startSmtpSink();
  try {
    const console_ = [];
    const email = [];
    for (let round = 1; round <= ROUNDS; round++) {
      console.log(`round ${round}/${ROUNDS}: console ...`);
      console_.push(await measure(await startServer({ channel: 'console', experts }), seconds));
      console.log(`round ${round}/${ROUNDS}: email (asks mailed to a local SMTP server in its own process, at the default pace) ...`);
      email.push(await measureEmail(smtp, experts, seconds));
    }
    console.log('one more: email unpaced (max_per_minute 60,000), for reference ...');
    const unpaced = await measureEmail(smtp, experts, seconds, UNPACED);
    printRows(LOAD_COLUMNS, [
      ...console_.map((r, i) => loadRow(`console #${i + 1}`, r.result)),
      ...email.map((r, i) => loadRow(`email #${i + 1}`, r.result)),
      loadRow('email unpaced', unpaced.result),
    ]);
    const problems = [
      ...console_.flatMap((r, i) => problemsOf(`console #${i + 1}`, r)),
      ...email.flatMap((r, i) => emailProblems(`email #${i + 1}`, r)),
      ...emailProblems('email unpaced', unpaced),
    ];
    const ratio = mean(email) / mean(console_);
    console.log(`for reference, unpaced email / console = ${(unpaced.result.requestsPerSec / mean(console_)).toFixed(3)} (every mail's work during the burst)`);
    return { ratio, consoleRps: mean(console_), emailRps: mean(email), problems };
  } finally {
    await smtp.close();
  }
}

/**
 * Parts 2 and 3: replies filed in a real IMAP mailbox, read and turned into proposals, by one server on
 * SQLite, or by two on one PostgreSQL database both reading the same mailbox (each reply must still
 * make one proposal).
 */
async function inboundReplies(experts, engine) {
  const dovecot = await startDovecot();
  const smtp = await startSmtpSink();
  const pgServer = engine === 'postgres' ? await startPostgres() : null;
  const databaseUrl = pgServer ? await pgServer.createDatabase('email_inbound') : undefined;
  const servers = [];
  const imap = new ImapFlow({ host: dovecot.host, port: dovecot.port, auth: { user: dovecot.user, pass: dovecot.password }, logger: false });
  try {
    const query = pgServer ? (sql) => pgServer.query(databaseUrl, sql) : undefined;
    // The asks go out unpaced here: this part measures reading replies, not sending.
    for (let i = 0; i < (pgServer ? 2 : 1); i++) servers.push(await startServer({ channel: 'email', experts, smtpUrl: smtp.url, imapUrl: dovecot.url, databaseUrl, query, maxPerMinute: UNPACED }));
    const [first] = servers;
    for (let i = 0; i < REPLIES; i++) {
      const expert = experts[i % experts.length];
      await submitOne(first.url, { consumer_id: 'bench', topic: expert.topics[0], question: `Bench question ${i}?`, context: { asked_because: 'bench' }, target_experts: [expert.id] });
    }
    await first.settle();
    // Replies without a token, threaded under each ask's Message-ID as a mail client threads them.
    const asks = await first.rows("SELECT id, expert_id FROM asks WHERE state = 'open'");
    const replies = await Promise.all(
      asks.map((a) =>
        new MailComposer({
          from: `${a.expert_id}@bench.example`,
          to: 'expertq@bench.example',
          subject: 'Re: Question from Bench Org',
          inReplyTo: `<${a.id}@bench.example>`,
          messageId: `<reply-${a.id}@bench.example>`,
          text: 'Thirty days.\n\nOn Mon, 7 Dec 2026, Bench expertq wrote:\n> Bench question?\n',
        }).compile().build(),
      ),
    );
    await imap.connect();
    const started = Date.now();
    for (const raw of replies) await imap.append('INBOX', raw);
    const appended = Date.now() - started;
    const proposals = async () => Number((await first.rows("SELECT COUNT(*) AS n FROM proposals WHERE status = 'pending'"))[0].n);
    const deadline = started + 5 * MAX_INBOUND_S * 1000;
    while ((await proposals()) < asks.length && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    const elapsed = Date.now() - started;
    const twice = Number((await first.rows('SELECT COUNT(*) AS n FROM (SELECT request_id FROM proposals GROUP BY request_id HAVING COUNT(*) > 1) t'))[0].n);
    return { replies: asks.length, made: await proposals(), twice, appendedS: appended / 1000, elapsedS: elapsed / 1000 };
  } finally {
    await imap.logout().catch(() => {});
    for (const server of servers) await server.close();
    await smtp.close();
    await dovecot.stop();
    await pgServer?.close();
  }
}

async function submitOne(url, body) {
  const res = await fetch(`${url}/api/v1/requests`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (res.status >= 300) throw new Error(`submit answered ${res.status}: ${await res.text()}`);
}

export async function benchEmail() {
  const seconds = benchSeconds();
  const pool = topicPool();
  const experts = generateExperts(EXPERT_COUNT, pool).map((e) => ({ ...e, email: `${e.id}@bench.example` }));
  printHeading('The email channel: submits with email configured, and replies read from an IMAP mailbox');
  console.log(`${EXPERT_COUNT} experts with an email address, ${CONNECTIONS} connections, ${seconds} s per target, caps 1,000,000`);
  const submit = await submitThroughput(experts, seconds);
  const submitPass = submit.ratio >= MIN_EMAIL_RATIO && submit.problems.length === 0;
  for (const p of submit.problems) console.log(`PROBLEM: ${p}`);
  console.log(`submit throughput email / console = ${num(submit.emailRps, 1)} / ${num(submit.consoleRps, 1)} req/s = ${submit.ratio.toFixed(3)}  (target: >= ${MIN_EMAIL_RATIO}, means of ${ROUNDS} alternated runs)  ${submitPass ? 'PASS' : 'FAIL'}`);
  const inbound = {};
  if (HAVE_DOVECOT) {
    for (const engine of ['sqlite', 'postgres']) {
      console.log(`\n${REPLIES} replies filed in a Dovecot mailbox (IDLE), ${engine === 'sqlite' ? 'one server on SQLite' : 'two servers on one PostgreSQL database'} reading it ...`);
      const r = (inbound[engine] = await inboundReplies(experts, engine));
      console.log(`${num(r.made)} of ${num(r.replies)} replies became proposals in ${r.elapsedS.toFixed(1)} s (filing them took ${r.appendedS.toFixed(1)} s); requests with two proposals: ${r.twice}`);
    }
  } else {
    console.log('\nno Dovecot here (apt-get install -y dovecot-imapd): the inbound parts were not run');
  }
  const sqlite = inbound.sqlite;
  const postgres = inbound.postgres;
  const inboundPass = Boolean(sqlite && postgres) && sqlite.made === sqlite.replies && sqlite.twice === 0 && sqlite.elapsedS <= MAX_INBOUND_S && postgres.made === postgres.replies && postgres.twice === 0;
  console.log(`inbound: SQLite ${sqlite ? `${sqlite.elapsedS.toFixed(1)} s` : 'not run'} (target <= ${MAX_INBOUND_S} s, every reply one proposal); two instances on PostgreSQL ${postgres ? `${postgres.made}/${postgres.replies}, ${postgres.twice} twice` : 'not run'} (target: none twice)  ${inboundPass ? 'PASS' : 'FAIL'}`);
  return {
    name: 'email',
    ok: submitPass && inboundPass,
    summary: `email: submit ratio ${submit.ratio.toFixed(3)} (>= ${MIN_EMAIL_RATIO}) ${submitPass ? 'PASS' : 'FAIL'}; inbound SQLite ${sqlite ? `${sqlite.made}/${sqlite.replies} in ${sqlite.elapsedS.toFixed(1)} s` : 'not run'} (<= ${MAX_INBOUND_S} s), two PostgreSQL instances ${postgres ? `${postgres.made}/${postgres.replies} in ${postgres.elapsedS.toFixed(1)} s, ${postgres.twice} twice` : 'not run'} ${inboundPass ? 'PASS' : 'FAIL'}`,
  };
}
