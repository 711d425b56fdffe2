import { InvalidArgumentError, Option } from 'commander';
import { DateTime } from 'luxon';
import { INSIGHT_GROUPS, type InsightsView } from '../../wire/insight-schemas.js';
import type { CliContext } from '../context.js';
import { FIGURE_COLUMNS, failedReasons, figureCells, figureList, windowLine } from '../describe-insights.js';
import { nonEmpty } from '../options.js';

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}(:?\d{2})?)?$/i;
/** A time that says its zone (`Z`, `+01:00`); a date, or a time without one, is the organisation's. */
const namesItsZone = (value: string) => /T.*(Z|[+-]\d{2}(:?\d{2})?)$/i.test(value);

/** `--from` and `--to`: a date or an ISO time, checked here so a typo is a usage error, not an empty window. */
function parseWhen(flag: string): (value: string) => string {
  return (value) => {
    const v = value.trim();
    if (!(DATE.test(v) || TIME.test(v)) || !DateTime.fromISO(v, { zone: 'UTC' }).isValid) {
      throw new InvalidArgumentError(`${flag} must be a date (2026-11-23: the start of that day) or an ISO time (2026-11-23T09:30:00Z).`);
    }
    return v;
  };
}

/** The instant the API takes: a date is the start of that day, and a time without a zone is read, in `zone`. */
const instant = (value: string, zone: string) => DateTime.fromISO(value, { zone }).toUTC().toISO()!;

const KEY_HEAD: Record<(typeof INSIGHT_GROUPS)[number], string> = { topic: 'TOPIC', expert: 'EXPERT', consumer: 'CONSUMER', day: 'DAY', week: 'WEEK' };

interface InsightsOptions {
  from?: string;
  to?: string;
  by?: (typeof INSIGHT_GROUPS)[number];
  topic?: string;
  expert?: string;
  consumer?: string;
}

/** `insights`: what the service did in a window, the figures of `GET /insights` as a table. */
export function addInsightCommands({ program, say, table, client, print }: CliContext): void {
  program
    .command('insights')
    .description('what the service did in a window: requests by outcome, times to answer and decide, load, library reuse (reviewer or admin)')
    .option('--from <when>', 'start of the window, included: a date (its start, in org.timezone) or an ISO time (default: 30 days before --to)', parseWhen('--from'))
    .option('--to <when>', 'end of the window, not included: a date (its start) or an ISO time (default: now)', parseWhen('--to'))
    .addOption(new Option('--by <group>', 'a row per group besides the total (days and weeks in org.timezone, weeks from Monday)').choices(INSIGHT_GROUPS))
    .option('--topic <topic>', 'only requests of this topic', nonEmpty('--topic'))
    .option('--expert <expert_id>', 'only requests this expert was asked on, and their own asks and answers', nonEmpty('--expert'))
    .option('--consumer <consumer_id>', 'only requests of this consumer', nonEmpty('--consumer'))
    .action(async (opts: InsightsOptions) => {
      const c = client();
      const ask = (zone: string) => {
        const q = new URLSearchParams({
          ...(opts.from ? { from: instant(opts.from, zone) } : {}),
          ...(opts.to ? { to: instant(opts.to, zone) } : {}),
          ...(opts.by ? { group_by: opts.by } : {}),
          ...(opts.topic ? { topic: opts.topic } : {}),
          ...(opts.expert ? { expert: opts.expert } : {}),
          ...(opts.consumer ? { consumer: opts.consumer } : {}),
        });
        return c.get<InsightsView>(`/insights?${q}`);
      };
      let view = await ask(c.timeZone);
      // Days are the server's (its org.timezone, which it names): a date read in another zone here (no
      // config, or another one) is read again in the server's, so the window is the day the reader meant.
      const zoneless = [opts.from, opts.to].some((v) => v !== undefined && !namesItsZone(v));
      if (zoneless && view.time_zone !== c.timeZone) view = await ask(view.time_zone);
      print(view, () => {
        say(windowLine(view));
        say();
        if (view.group_by === null) {
          const width = Math.max(...figureList(view.total).map(([figure]) => figure.length));
          for (const [figure, value] of figureList(view.total)) say(`${figure.padEnd(width)}  ${value}`);
          return;
        }
        const rows = view.groups.map((g) => [g.key, ...figureCells(g)]);
        table([KEY_HEAD[view.group_by], ...FIGURE_COLUMNS], [...rows, ['TOTAL', ...figureCells(view.total)]]);
        const failed = failedReasons(view.total);
        if (failed) say(`\nFailed, by reason: ${failed}.`);
      });
    });
}
