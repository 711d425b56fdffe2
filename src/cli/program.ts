import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, Option } from 'commander';
import type { ProposalBody, RequestView } from '../service/views.js';
import type { ExpertView } from '../service/experts.js';
import { systemReason } from '../config/load-config.js';
import { resolveConfigPath } from '../config/resolve-config-path.js';
import { createClient, CliError } from './client.js';
import { addLocalCommands } from './local-commands.js';
import { addServeCommand } from './serve-command.js';
import { howToRun } from './how-to-run.js';

const PACKAGE_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const TERMINAL: ReadonlyArray<string> = ['accepted', 'rejected', 'failed'];

interface DeliveryRow {
  id: string;
  event: string | null;
  consumer_id: string;
  state: string;
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
}

function readAnswerFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new CliError(`Cannot read --answer-file ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER ?? 'cli';
  }
}

export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
}

/** The `expertq` command line. Client commands talk to the running server's HTTP API. */
export function buildProgram(io: Io = { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) }): Command {
  const program = new Command('expertq')
    .description('Ask named human experts; get human-reviewed answers.')
    .option('--config <path>', 'configuration file (default: $EXPERTQ_CONFIG, else ./service.yaml, else ./service.example.yaml)')
    .option('--timeout <seconds>', 'seconds to wait for the server on each request (default: 10)')
    .option('--url <url>', 'server URL (default: $EXPERTQ_URL, else http://127.0.0.1:<server.port>)')
    .option('--json', 'print raw JSON')
    .version(packageVersion(), '-V, --version', 'print the version')
    .addHelpText(
      'after',
      '\nEnvironment:\n  EXPERTQ_CONFIG   configuration file, when --config is not given\n  EXPERTQ_URL      server URL, when --url is not given\n' +
        '  EXPERTQ_TOKEN    bearer token for client commands (else the variable named by server.api_token_env, SERVICE_API_TOKEN)\n' +
        '  PORT             the server\'s port instead of server.port, for serve and every client command (serve --port wins)\n' +
        '  LOG_LEVEL, LOG_FORMAT   serve: fatal|error|warn|info|debug|trace|silent; json|pretty',
    )
    .configureHelp({ showGlobalOptions: true })
    // Usage errors read like every other error: "expertq: …", then the hint.
    .configureOutput({ writeOut: io.out, writeErr: io.err, outputError: (text, write) => write(text.replace(/^error: /, 'expertq: ')) })
    .exitOverride()
    .showHelpAfterError('(add --help for usage)');

  const say = (line = '') => io.out(`${line}\n`);
  /** Aligned columns; long cells are cut with … so a row stays on one line. */
  const table = (head: string[], rows: string[][], lastMax = 80) => {
    const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
    const cells = [head, ...rows].map((row) => row.map((cell, i) => cut(cell, i === row.length - 1 ? lastMax : 32)));
    const widths = head.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
    for (const row of cells) say(row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ').trimEnd());
  };
  const client = () => {
    const opts = program.opts<{ config?: string; url?: string; timeout?: string }>();
    const config = resolveConfigPath(opts.config);
    if (config.from !== './service.yaml') {
      // An existing file the CLI may not reach (a folder on its path it may not enter) is not "not found".
      try {
        statSync(config.path);
      } catch (error) {
        const e = error as NodeJS.ErrnoException;
        if (e.code === 'ENOENT') throw new CliError(`Configuration file not found: ${config.path} (from ${config.from})`);
        throw new CliError(`Cannot read the configuration file ${config.path} (from ${config.from}): ${systemReason(e)}.`);
      }
    }
    const timeoutS = Number(opts.timeout ?? 10);
    if (!(timeoutS > 0)) throw new CliError('--timeout must be a number of seconds greater than 0.', 2);
    return createClient({ config: config.path, configFrom: config.from, url: opts.url, timeoutMs: timeoutS * 1000 });
  };
  /** The drafted question (SPEC §13) beside the raw one, when an LLM drafted a different one. */
  const askedAs = (r: RequestView) => {
    if (r.asked_question === null) say('  Asked as: (the question is being drafted)');
    else if (r.asked_question !== r.question) say(`  Asked as: ${r.asked_question}`);
  };
  /** What was done to a proposal, in the CLI's verbs: a sent-back one reads as rejected, reason "returned". */
  const outcomeOf = (p: ProposalBody): 'accept' | 'reject' | 'return' | 'pending' =>
    p.status === 'accepted' ? 'accept' : p.status === 'rejected' ? (p.decision?.reason === 'returned' ? 'return' : 'reject') : 'pending';
  const PAST = { accept: 'accepted', reject: 'rejected', return: 'sent back', pending: 'pending' } as const;
  const alreadyDecided = (p: ProposalBody) =>
    new CliError(`${p.id} was already ${PAST[outcomeOf(p)]}${p.decision ? ` by ${p.decision.decided_by}` : ''}; nothing changed.`);
  /**
   * Accept, reject and return answer 200 with the proposal as it is when it was decided before (a
   * no-op, SPEC §4): look first, so a second `accept` says it changed nothing and exits 1.
   */
  const decide = async (id: string, verb: 'accept' | 'reject' | 'return', body: Record<string, unknown>): Promise<ProposalBody> => {
    const c = client();
    const path = `/proposals/${encodeURIComponent(id)}`;
    // A token that may not read proposals gets the decision's own 403 below, which says what it may not do.
    const before = await c.get<ProposalBody>(path).catch((error: unknown) => {
      if (error instanceof CliError && error.code === 'forbidden') return null;
      throw error;
    });
    if (before && before.status !== 'pending') throw alreadyDecided(before);
    const p = await c.post<ProposalBody>(`${path}/${verb}`, body);
    if (outcomeOf(p) !== verb) throw alreadyDecided(p); // decided otherwise by someone else between the two calls
    return p;
  };
  const decided = (p: ProposalBody) =>
    print(p, () => say(`${p.id} is ${p.status} (by ${p.decision!.decided_by}${p.decision!.reason ? `: ${p.decision!.reason}` : ''})`));
  const json = () => Boolean(program.opts().json);
  const print = (value: unknown, human: () => void) => (json() ? say(JSON.stringify(value, null, 2)) : human());

  addServeCommand(program);

  program
    .command('mcp')
    .description('serve the MCP tools over stdio for an agent (a client of the running server; nothing but MCP on stdout)')
    .action(async () => {
      const c = client();
      const [{ StdioServerTransport }, { createMcpServer }, { httpBackend }] = await Promise.all([
        import('@modelcontextprotocol/sdk/server/stdio.js'),
        import('../mcp/create-mcp-server.js'),
        import('../mcp/http-backend.js'),
      ]);
      // A consumer token asks as its own consumer by default, as over /mcp.
      const me = await c.get<{ name: string | null; role: string }>('/me').catch(() => null);
      const server = createMcpServer(httpBackend(c), me?.role === 'consumer' && me.name ? { defaultConsumer: me.name } : {});
      await server.connect(new StdioServerTransport());
      process.stderr.write(`expertq mcp: MCP on stdio, calling ${c.base}\n`);
    });

  program
    .command('init')
    .description('write a commented configuration file to --config')
    .option('--force', 'overwrite an existing file')
    .action((opts: { force?: boolean }) => {
      const target = resolve(program.opts().config ?? 'service.yaml');
      if (existsSync(target) && !opts.force) throw new CliError(`${target} already exists; pass --force to overwrite it.`);
      mkdirSync(dirname(target), { recursive: true });
      copyFileSync(join(PACKAGE_ROOT, 'service.example.yaml'), target);
      say(`Wrote ${target}.`);
      // A random token in .env beside it (only this user may read it), unless there is one already.
      const dotenv = join(dirname(target), '.env');
      if (!existsSync(dotenv)) {
        writeFileSync(dotenv, `# Written by expertq init. The bearer token for the API, CLI, web UI and MCP:\nSERVICE_API_TOKEN=${randomBytes(32).toString('base64url')}\n`, { mode: 0o600 });
        say(`Wrote ${dotenv} with a random SERVICE_API_TOKEN (readable by you only); the server and the CLI read it from there.`);
      }
      say(`Edit org.name, storage.path and the experts, then run: ${howToRun(target, 'serve')}`);
    });

  addLocalCommands(program, say);

  program
    .command('queue')
    .description('list pending proposals with their question and answer')
    .action(async () => {
      const c = client();
      const pending = await c.get<ProposalBody[]>('/proposals?status=pending');
      const rows = await Promise.all(pending.map(async (p) => ({ proposal: p, request: await c.get<RequestView>(`/requests/${p.request_id}`) })));
      print(rows, () => {
        if (rows.length === 0) return say('Nothing pending');
        for (const { proposal, request } of rows) {
          say(`${proposal.id}  (request ${request.id}, topic "${request.topic}", from ${request.consumer_id})`);
          say(`  Question: ${request.question}`);
          askedAs(request);
          say(`  Answer from ${proposal.provenance.expert_name}: ${proposal.answer}`);
          const llm = proposal.provenance.llm;
          if (llm?.structured) say(`  Structured (confidence ${proposal.confidence}): ${JSON.stringify(proposal.structured)}`);
          else if (llm) say('  Structured: not by the LLM (it fell back; see the audit)');
          say();
        }
      });
    });

  program
    .command('accept <proposal_id>')
    .description('accept a pending proposal, optionally with your corrected answer')
    .addOption(new Option('--decided-by <name>', 'who approves').default(osUser(), 'your OS user name'))
    .option('--note <text>', 'note recorded with the decision')
    .option('--answer <text>', 'deliver this corrected answer instead (the expert\'s text is kept as original_answer)')
    .option('--answer-file <path>', 'read the corrected answer from a file')
    .action(async (id: string, opts: { decidedBy: string; note?: string; answer?: string; answerFile?: string }) => {
      if (opts.answer !== undefined && opts.answerFile !== undefined) throw new CliError('Give --answer or --answer-file, not both.', 2);
      const answer = opts.answerFile !== undefined ? readAnswerFile(opts.answerFile) : opts.answer;
      const body = { decided_by: opts.decidedBy, note: opts.note, ...(answer !== undefined ? { answer } : {}) };
      const p = await decide(id, 'accept', body);
      decided(p);
      if (!json() && p.original_answer !== null && p.decision) say(`  delivered your edit; the expert's text is kept: ${p.original_answer}`);
    });

  program
    .command('return <proposal_id>')
    .alias('send-back')
    .description('send a pending proposal back to its expert with instructions (the expert is asked again)')
    .requiredOption('--instructions <text>', 'what the expert should change or add (required)')
    .addOption(new Option('--decided-by <name>', 'who sends it back').default(osUser(), 'your OS user name'))
    .action(async (id: string, opts: { decidedBy: string; instructions: string }) => {
      const p = await decide(id, 'return', { decided_by: opts.decidedBy, instructions: opts.instructions });
      print(p, () => say(`${p.id} sent back to ${p.provenance.expert_name} (by ${p.decision!.decided_by}); the request waits for a new answer.`));
    });

  program
    .command('reject <proposal_id>')
    .description('reject a pending proposal')
    .requiredOption('--reason <text>', 'why; delivered to the consumer (required)')
    .addOption(new Option('--decided-by <name>', 'who rejects').default(osUser(), 'your OS user name'))
    .action(async (id: string, opts: { decidedBy: string; reason: string }) => {
      decided(await decide(id, 'reject', { decided_by: opts.decidedBy, reason: opts.reason }));
    });

  program
    .command('ask <question>')
    .description('submit a question as a consumer')
    .requiredOption('--topic <topic>', 'topic used to route the question (required)')
    .requiredOption('--because <reason>', 'why you are stuck (shown to the expert) (required)')
    .option('--consumer <id>', 'consumer id', 'cli')
    .option('--kind <kind>', 'kind of answer')
    .option('--expert <id...>', 'ask these experts directly')
    .option('--dedup-key <key>', 'deduplication key')
    .option('--wait', 'wait until the request is resolved and print the answer')
    .action(async (question: string, opts: { topic: string; because: string; consumer: string; kind?: string; expert?: string[]; dedupKey?: string; wait?: boolean }) => {
      const c = client();
      const result = await c.post<{ request_id: string; status: string; reason?: { code: string; message: string } }>('/requests', {
        consumer_id: opts.consumer,
        topic: opts.topic,
        question,
        kind: opts.kind,
        context: { asked_because: opts.because },
        target_experts: opts.expert,
        dedup_key: opts.dedupKey,
      });
      if (!opts.wait || result.status === 'failed') {
        print(result, () => say(`${result.request_id} ${result.status}${result.reason ? `: ${result.reason.code} (${result.reason.message})` : ''}`));
        if (result.status === 'failed') throw new CliError(`request ${result.request_id} failed: ${result.reason?.code}`);
        return;
      }
      let request = await c.get<RequestView>(`/requests/${result.request_id}`);
      while (!TERMINAL.includes(request.status)) {
        await new Promise((r) => setTimeout(r, 2000));
        request = await c.get<RequestView>(`/requests/${result.request_id}`);
      }
      const proposal = request.proposal_id ? await c.get<ProposalBody>(`/proposals/${request.proposal_id}`) : null;
      print({ request, proposal }, () => {
        say(`${request.id} ${request.status}${request.reason ? `: ${request.reason.code}` : ''}`);
        if (proposal && request.status === 'accepted') say(`Answer from ${proposal.provenance.expert_name}: ${proposal.answer}`);
      });
      if (request.status !== 'accepted') throw new CliError(`request ${request.id} ended ${request.status}`);
    });

  program
    .command('requests')
    .description('list requests, newest first')
    .option('--status <status>', 'only this status')
    .option('--topic <topic>', 'only this topic')
    .option('--consumer <id>', 'only this consumer')
    .option('--search <text>', 'only questions containing this text')
    .option('--limit <n>', 'how many', '20')
    .action(async (opts: { status?: string; topic?: string; consumer?: string; search?: string; limit: string }) => {
      const q = new URLSearchParams({
        limit: opts.limit,
        ...(opts.status ? { status: opts.status } : {}),
        ...(opts.topic ? { topic: opts.topic } : {}),
        ...(opts.consumer ? { consumer_id: opts.consumer } : {}),
        ...(opts.search ? { q: opts.search } : {}),
      });
      const page = await client().get<{ items: RequestView[] }>(`/requests?${q}`);
      print(page, () => {
        if (page.items.length === 0) return say('No requests');
        table(['REQUEST', 'STATUS', 'TOPIC', 'CONSUMER', 'QUESTION'], page.items.map((r) => [r.id, r.status, r.topic, r.consumer_id, r.question]));
      });
    });

  program
    .command('request <request_id>')
    .description('show one request')
    .action(async (id: string) => {
      const c = client();
      const r = await c.get<RequestView>(`/requests/${encodeURIComponent(id)}`);
      const proposal = r.proposal_id ? await c.get<ProposalBody>(`/proposals/${encodeURIComponent(r.proposal_id)}`) : null;
      print(r, () => {
        say(`${r.id}  ${r.status}${r.reason ? ` (${r.reason.code}: ${r.reason.message})` : ''}`);
        say(`  Topic: ${r.topic}   Consumer: ${r.consumer_id}   Kind: ${r.kind}`);
        say(`  Question: ${r.question}`);
        askedAs(r);
        for (const a of r.asks) say(`  Ask ${a.id} → ${a.expert_id}: ${a.state}${a.sent_at ? ` (sent ${a.sent_at})` : ''}`);
        if (proposal) {
          say(`  Proposal ${proposal.id} (${proposal.status}${proposal.decision ? ` by ${proposal.decision.decided_by}` : ''})`);
          say(`  Answer from ${proposal.provenance.expert_name}: ${proposal.answer}`);
          if (proposal.original_answer !== null) say(`  (edited; the expert wrote: ${proposal.original_answer})`);
        }
      });
    });

  program
    .command('audit <request_id>')
    .description('every step of a request')
    .action(async (id: string) => {
      const rows = await client().get<Array<{ at: string; type: string; actor: string; data: unknown }>>(`/audit?request_id=${encodeURIComponent(id)}`);
      // The details are the record: never cut.
      print(rows, () => table(['AT', 'WHAT', 'BY', 'DETAILS'], rows.map((e) => [e.at, e.type, e.actor, JSON.stringify(e.data)]), Infinity));
    });

  program
    .command('experts')
    .description('the expert registry with live state')
    .action(async () => {
      const experts = await client().get<ExpertView[]>('/experts');
      print(experts, () =>
        table(
          ['EXPERT', 'NAME', 'OPEN', 'TODAY', 'STATE', 'TOPICS'],
          experts.map((e) => [e.id, e.name, String(e.open_asks), String(e.asks_today), e.muted ? 'MUTED' : 'available', e.topics.join(', ')]),
        ),
      );
    });

  program
    .command('deliveries')
    .description('webhook and in-process deliveries, newest first')
    .option('--consumer <id>', 'only this consumer')
    .option('--state <state>', 'pending, delivered, dead or dropped')
    .option('--limit <n>', 'how many', '20')
    .option('--retry <delivery_id>', 'deliver this one again now (replay)')
    .action(async (opts: { consumer?: string; state?: string; limit: string; retry?: string }) => {
      const c = client();
      if (opts.retry) {
        const d = await c.post<DeliveryRow>(`/deliveries/${encodeURIComponent(opts.retry)}/retry`);
        return print(d, () => say(`${d.id} is ${d.state} again; it will be delivered shortly`));
      }
      const q = new URLSearchParams({ limit: opts.limit, ...(opts.consumer ? { consumer_id: opts.consumer } : {}), ...(opts.state ? { state: opts.state } : {}) });
      const page = await c.get<{ items: DeliveryRow[] }>(`/deliveries?${q}`);
      print(page, () => {
        if (page.items.length === 0) return say('No deliveries');
        table(
          ['DELIVERY', 'STATE', 'CONSUMER', 'EVENT', 'TRIES', 'HTTP', 'NEXT TRY / LAST ERROR'],
          page.items.map((d) => [
            d.id, d.state, d.consumer_id, d.event ?? '-', String(d.attempts), String(d.last_status ?? '-'),
            [d.state === 'pending' && d.next_attempt_at ? `next ${d.next_attempt_at}` : '', d.last_error ?? ''].filter(Boolean).join('; '),
          ]),
        );
      });
    });

  program
    .command('mute <expert_id>')
    .description('mute an expert: no more asks until unmuted; their open asks are passed on')
    .option('--by <name>', 'who mutes (default: your OS user; a named token mutes as itself)', osUser())
    .action(async (id: string, opts: { by: string }) => {
      const e = await client().post<ExpertView>(`/experts/${encodeURIComponent(id)}/mute`, { muted_by: opts.by });
      print(e, () => say(`${e.id} is muted: no more asks until \`expertq unmute ${e.id}\`; open asks were passed on.`));
    });

  program
    .command('unmute <expert_id>')
    .description('clear an expert’s mute')
    .action(async (id: string) => {
      const e = await client().post<ExpertView>(`/experts/${encodeURIComponent(id)}/unmute`);
      print(e, () => say(`${e.id} is ${e.muted ? 'muted' : 'not muted'}`));
    });

  program
    .command('reply <expert_id> <text>')
    .description('reply as an expert (console transport): an answer, or mute, skip, unmute')
    .option('--request <request_id>', 'the request answered (default: the expert’s oldest open ask)')
    .action(async (expertId: string, text: string, opts: { request?: string }) => {
      const r = await client().post<{ request_id: string | null; outcome: string; proposal_id?: string }>('/replies', {
        expert_id: expertId,
        text,
        request_id: opts.request,
      });
      print(r, () => say(`${r.outcome}${r.request_id ? ` (request ${r.request_id})` : ''}${r.proposal_id ? `: proposal ${r.proposal_id} is pending review` : ''}`));
    });

  return program;
}
