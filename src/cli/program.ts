import { Command } from 'commander';
import { addAnswerCommands } from './commands/answers.js';
import { addAskCommand } from './commands/ask.js';
import { addConsumerCommands } from './commands/consumers.js';
import { addAwayCommands } from './commands/away.js';
import { addExpertCommands } from './commands/experts.js';
import { addInsightCommands } from './commands/insights.js';
import { addRequestCommands } from './commands/requests.js';
import { addReviewCommands } from './commands/review.js';
import { addServerCommands } from './commands/server.js';
import { addSessionCommands } from './commands/sessions.js';
import { packageVersion } from '../package-info.js';
import { makeContext, type Io } from './context.js';
import { addLocalCommands } from './local-commands.js';

export type { Io };

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

  const context = makeContext(program, io);
  addServerCommands(context);
  addLocalCommands(program, context.say);
  addReviewCommands(context);
  addAskCommand(context);
  addRequestCommands(context);
  addExpertCommands(context);
  addAwayCommands(context);
  addConsumerCommands(context);
  addAnswerCommands(context);
  addInsightCommands(context);
  addSessionCommands(context);
  return program;
}
