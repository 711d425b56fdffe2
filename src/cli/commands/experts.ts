import type { CliContext } from '../context.js';
import { osUser } from '../context.js';
import { awayLine, expertState } from '../describe-request.js';
import type { ExpertWire } from '../wire.js';

/** `experts`, `topics`, `mute`, `unmute` and `reply`: the experts, and acting for one. */
export function addExpertCommands({ program, say, table, client, print }: CliContext): void {
  program
    .command('topics')
    .description('the topics questions can be asked about, with how many experts take each and how many could be asked now')
    .action(async () => {
      const topics = await client().api.topics();
      print(topics, () => {
        if (topics.length === 0) return say('No topics: no expert is configured');
        table(['TOPIC', 'EXPERTS', 'AVAILABLE', 'FALLBACK'], topics.map((t) => [t.topic, String(t.experts), String(t.available_now), t.fallback ?? '-']));
      });
    });

  program
    .command('experts')
    .description('the expert registry with live state (available, or why not: muted, away, at cap, quiet hours)')
    .action(async () => {
      const c = client();
      const experts: ExpertWire[] = await c.api.experts();
      const now = Date.now();
      print(experts, () => {
        table(
          // The state last, where it is never cut short: "off work until Thu 26 Nov 08:00 UTC".
          ['EXPERT', 'NAME', 'OPEN', 'TODAY', 'TOPICS', 'CHANNELS', 'STATE'],
          experts.map((e) => [e.id, e.name, String(e.open_asks), String(e.asks_today), e.topics.join(', '), e.reached_on.join(', ') || 'none', expertState(e, now, c.timeZone)]),
        );
        const away = experts.map((e) => awayLine(e, now, c.timeZone)).filter((line): line is string => line !== null);
        if (away.length > 0) say(['', ...away].join('\n'));
      });
    });

  program
    .command('mute <expert_id>')
    .description('mute an expert: no more asks until unmuted; their open asks are passed on')
    .option('--by <name>', 'who mutes (default: your OS user; a named token mutes as itself)', osUser())
    .action(async (id: string, opts: { by: string }) => {
      const e = await client().api.mute(id, { muted_by: opts.by });
      print(e, () => say(`${e.id} is muted: no more asks until \`expertq unmute ${e.id}\`; open asks were passed on.`));
    });

  program
    .command('unmute <expert_id>')
    .description('clear an expert’s mute')
    .action(async (id: string) => {
      const e = await client().post<ExpertWire>(`/experts/${encodeURIComponent(id)}/unmute`);
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
}
