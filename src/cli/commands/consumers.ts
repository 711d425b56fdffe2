import type { Consumer, Delivery } from '../../wire/types.js';
import type { CliContext } from '../context.js';
import { parseLimit } from '../options.js';

type ConsumerRow = Pick<Consumer, 'id' | 'handles_kinds' | 'delivery' | 'auto_accept'>;
type DeliveryRow = Pick<Delivery, 'id' | 'event' | 'consumer_id' | 'state' | 'attempts' | 'last_status' | 'last_error' | 'next_attempt_at'>;

/** `consumers` (and `consumers remove`) and `deliveries`: who gets answers, and how delivering went. */
export function addConsumerCommands({ program, say, table, client, print, when }: CliContext): void {
  const consumers = program
    .command('consumers')
    .description('registered consumers: kinds, auto-accept and where answers are delivered (`consumers remove <id>` unregisters one)')
    .action(async () => {
      const rows = await client().get<ConsumerRow[]>('/consumers');
      print(rows, () => {
        if (rows.length === 0) return say('No consumers registered');
        table(
          ['CONSUMER', 'KINDS', 'AUTO-ACCEPT', 'DELIVERY'],
          rows.map((r) => [r.id, r.handles_kinds.join(', '), r.auto_accept ? 'yes' : 'no', r.delivery.type === 'webhook' ? r.delivery.url : 'in process']),
          Infinity,
        );
      });
    });

  consumers
    .command('remove <consumer_id>')
    .description('unregister a consumer; its pending deliveries are dropped')
    .action(async (id: string) => {
      await client().delete(`/consumers/${encodeURIComponent(id)}`);
      print({ id, removed: true }, () => say(`${id} is no longer registered; its pending deliveries were dropped.`));
    });

  program
    .command('deliveries')
    .description('webhook and in-process deliveries, newest first')
    .option('--consumer <id>', 'only this consumer')
    .option('--state <state>', 'pending, delivered, dead or dropped')
    .option('--limit <n>', 'how many, 1 to 500', parseLimit, '20')
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
            [d.state === 'pending' && d.next_attempt_at ? `next ${when(d.next_attempt_at, c)}` : '', d.last_error ?? ''].filter(Boolean).join('; '),
          ]),
        );
      });
    });
}
