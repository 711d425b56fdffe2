import { composeAskStatus, type AskClosure } from '../../core/compose-feedback.js';
import type { ChannelName } from '../../domain/channels.js';
import type { AskRecord, AskState } from '../../domain/records.js';
import type { Tx } from '../../store/store.js';
import { queueMessage, type Engine } from './engine.js';

/**
 * Closes an ask. On a threaded transport an ask that was sent also gets its message edited (buttons
 * gone, a status line), queued in the same transaction, so no stale button can be pressed later.
 */
export async function closeAsk(
  engine: Pick<Engine, 'threadedTransport'>,
  tx: Tx,
  ask: AskRecord,
  state: Exclude<AskState, 'queued' | 'open'>,
  closure: AskClosure,
  now: number,
): Promise<void> {
  const wasSent = ask.state === 'open' && ask.sent_at !== null;
  await tx.asks.update(ask.id, { state, closed_at: now, ...(ask.send_after !== null ? { send_after: null } : {}) });
  ask.state = state;
  ask.closed_at = now;
  if (wasSent && engine.threadedTransport) {
    await queueMessage(tx, { expert_id: ask.expert_id, request_id: ask.request_id, ask_id: ask.id, purpose: 'ask_update', channel: ask.channel ?? null, text: composeAskStatus(closure) }, now);
  }
}

/** A short message in the ask's thread (threaded transports only; the console has nowhere to put it). */
export async function tellInThread(engine: Pick<Engine, 'threadedTransport'>, tx: Tx, ask: Pick<AskRecord, 'id' | 'expert_id' | 'request_id' | 'channel'>, text: string, now: number): Promise<void> {
  if (!engine.threadedTransport) return;
  await queueMessage(tx, { expert_id: ask.expert_id, request_id: ask.request_id, ask_id: ask.id, purpose: 'feedback', channel: ask.channel ?? null, text }, now);
}

/**
 * A top-level direct message that belongs to no ask (threaded transports only): on `channel` (where the
 * expert just wrote from), else on the first channel that has an address for them.
 */
export async function tellExpert(engine: Pick<Engine, 'threadedTransport'>, tx: Tx, expertId: string, text: string, now: number, channel: ChannelName | null = null): Promise<void> {
  if (!engine.threadedTransport) return;
  await queueMessage(tx, { expert_id: expertId, request_id: null, ask_id: null, purpose: 'notice', channel, text }, now);
}

/** The display name of an expert, or the id of one no longer in the registry. */
export function expertName(experts: Engine['experts'], id: string): string {
  return experts.get(id)?.name ?? id;
}
