import { formatWhen } from '../../core/describe-time.js';
import type { CliContext } from '../context.js';
import type { ExpertWire } from '../wire.js';

/** `away` and `back`: an expert's away spell, set and ended by an admin. */
export function addAwayCommands({ program, say, client, print }: CliContext): void {
  program
    .command('away <expert_id>')
    .description('set an expert away: not asked until then; their open questions pass on to the delegate (or along the escalation chain) at once')
    .requiredOption('--until <when>', 'when they are back: a date or time (2026-12-01, 2026-12-01T09:00; read in the expert’s time zone without an offset) or a duration from now (3d, 1w)')
    .option('--delegate <expert_id>', 'another expert asked instead while they are away')
    .option('--note <text>', 'a note shown with the spell, e.g. "On holiday"')
    .action(async (id: string, opts: { until: string; delegate?: string; note?: string }) => {
      const c = client();
      const e: ExpertWire = await c.api.setAway(id, { until: opts.until, delegate_to: opts.delegate ?? null, note: opts.note ?? null });
      print(e, () => {
        const until = e.away ? formatWhen(e.away.until, Date.now(), c.timeZone) : opts.until;
        const instead = e.away?.delegate_to ? `; ${e.away.delegate_to} is asked first meanwhile` : '';
        say(`${e.id} is away until ${until}${instead}. Open questions were passed on; \`expertq back ${e.id}\` ends it early.`);
      });
    });

  program
    .command('back <expert_id>')
    .description('end an expert’s away spell now (nothing happens when they are not away)')
    .action(async (id: string) => {
      const e = await client().api.endAway(id);
      print(e, () => say(`${e.id} is back: questions can go to them again.`));
    });
}
