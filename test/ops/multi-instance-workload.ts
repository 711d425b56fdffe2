import { setTimeout as pause } from 'node:timers/promises';
import { HttpError, isNetworkError, type InstancePool, type Json } from '../support/instance-pool.js';

/** The topic under a review rule that needs two reviewers' accepts, and those reviewers. */
export const TWO_PERSON_TOPIC = 'refunds';
export const TWO_PERSON_REVIEWERS = ['rev-a@multi.example', 'rev-b@multi.example'] as const;

/** What the reviewer does with an item's first proposal; `return` sends it back once, then accepts the second. */
export type Plan = 'accept' | 'reject' | 'return';

export interface Item {
  key: string;
  expert: string;
  topic: string;
  plan: Plan;
  /** Submitted at the same moment to every instance with one dedup_key. */
  race: boolean;
  requestId?: string;
}

/** What the instances acknowledged (answered 2xx): all of it must be stored at the end. */
export interface Acked {
  requests: Set<string>;
  /** request id → every id a submit with this dedup key was answered with. */
  byKey: Map<string, Set<string>>;
  replies: Array<{ requestId: string; askId: string; proposalId: string }>;
  /** proposal id → the decision the API acknowledged. */
  decisions: Map<string, 'accepted' | 'rejected' | 'returned'>;
}

export function newAcked(): Acked {
  return { requests: new Set(), byKey: new Map(), replies: [], decisions: new Map() };
}

/**
 * Drives one item through submit → reply → decision (and, for `return`, reply → accept again),
 * each call on the next instance in turn. Every step reads the request first, so a call whose
 * outcome a kill hid is never repeated blindly: the state says what is still to do.
 */
export class Workload {
  /** Acknowledged writes so far (the kill moments are drawn on this count). */
  writes = 0;
  /** Calls that met a killed instance: refused, or cut with their outcome unknown until the next read. */
  interrupted = 0;
  onWrite: (() => void) | null = null;

  constructor(
    private readonly pool: InstancePool,
    readonly acked: Acked,
  ) {}

  async run(item: Item, upTo: 'proposed' | 'decided' = 'decided'): Promise<Json> {
    for (let step = 0; step < 400; step++) {
      try {
        if (!item.requestId) {
          await this.submit(item);
          continue;
        }
        const request = await this.pool.read('GET', `/requests/${item.requestId}`);
        switch (request.status) {
          case 'accepted':
          case 'rejected':
            return request;
          case 'proposed':
            if (upTo === 'proposed') return request;
            await this.decide(item, request);
            break;
          case 'queued':
          case 'asked':
          case 'escalated': {
            const open = request.asks.find((a: Json) => a.state === 'open' && a.sent_at !== null && a.expert_id === item.expert);
            if (open) await this.reply(item, step);
            // Held (the expert is at the open-ask cap) or about to be sent: look again shortly.
            else await pause(50);
            break;
          }
          default:
            throw new Error(`request ${item.requestId} (${item.key}) is ${request.status}: ${JSON.stringify(request.reason)}`);
        }
      } catch (error) {
        if (!isNetworkError(error)) throw error;
        this.interrupted++;
      }
    }
    throw new Error(`item ${item.key} did not finish`);
  }

  private wrote(): void {
    this.writes++;
    this.onWrite?.();
  }

  private body(item: Item) {
    return {
      consumer_id: 'multi-bot',
      topic: item.topic,
      question: `Which rule applies to ${item.key}?`,
      context: { asked_because: `multi-instance test ${item.key}` },
      target_experts: [item.expert],
      dedup_key: item.key,
    };
  }

  private note(item: Item, answer: Json): void {
    if (!['queued', 'deduped_open'].includes(answer.status)) throw new Error(`submit of ${item.key} answered ${JSON.stringify(answer)}`);
    this.acked.requests.add(answer.request_id);
    const ids = this.acked.byKey.get(item.key) ?? new Set<string>();
    ids.add(answer.request_id);
    this.acked.byKey.set(item.key, ids);
    item.requestId = answer.request_id;
    this.wrote();
  }

  private async submit(item: Item): Promise<void> {
    if (!item.race) {
      this.note(item, await this.pool.ok(this.pool.next(), 'POST', '/requests', this.body(item)));
      return;
    }
    // The same key at the same moment on every instance: one request, whatever instance wins.
    const answers = await Promise.allSettled(this.pool.bases.map((_, i) => this.pool.call(i, 'POST', '/requests', this.body(item))));
    for (const answer of answers) {
      if (answer.status === 'rejected') {
        if (!isNetworkError(answer.reason)) throw answer.reason;
        this.interrupted++;
      } else if (answer.value.status !== 200) {
        throw new HttpError(answer.value.status, answer.value.body, `racing submit of ${item.key}`);
      } else {
        this.note(item, answer.value.body);
      }
    }
  }

  private async reply(item: Item, step: number): Promise<void> {
    const text = `For ${item.key}, rule ${step} applies.`;
    const answer = await this.pool.ok(this.pool.next(), 'POST', '/replies', { expert_id: item.expert, text, request_id: item.requestId });
    if (answer.outcome !== 'proposed') throw new Error(`reply to ${item.key} answered ${JSON.stringify(answer)}`);
    this.acked.replies.push({ requestId: item.requestId!, askId: answer.ask_id, proposalId: answer.proposal_id });
    this.wrote();
  }

  private async decide(item: Item, request: Json): Promise<void> {
    const proposalId: string = request.proposal_id;
    // Under the two-person rule only its reviewers decide; elsewhere anyone does.
    const by = { decided_by: item.topic === TWO_PERSON_TOPIC ? TWO_PERSON_REVIEWERS[0] : `reviewer-${item.key}` };
    let action: Plan = item.plan;
    if (action === 'return') {
      const trail = await this.pool.read('GET', `/audit?request_id=${item.requestId}`);
      if (trail.some((e: Json) => e.type === 'returned')) action = 'accept';
    }
    const instance = this.pool.next();
    if (action === 'accept' && item.topic === TWO_PERSON_TOPIC) {
      // Two reviewers vote at the same moment on two instances: one decision, whichever commits second.
      const other = (instance + 1) % this.pool.servers.length;
      const answers = await Promise.all(
        TWO_PERSON_REVIEWERS.map((name, i) => this.pool.ok(i === 0 ? instance : other, 'POST', `/proposals/${proposalId}/accept`, { decided_by: name })),
      );
      if (!answers.some((a) => a.status === 'accepted')) throw new Error(`two accepts of ${proposalId} answered ${JSON.stringify(answers)}`);
      this.acked.decisions.set(proposalId, 'accepted');
    } else if (action === 'accept') {
      const answer = await this.pool.ok(instance, 'POST', `/proposals/${proposalId}/accept`, by);
      if (answer.status !== 'accepted') throw new Error(`accept of ${proposalId} answered ${JSON.stringify(answer)}`);
      this.acked.decisions.set(proposalId, 'accepted');
    } else if (action === 'reject') {
      const answer = await this.pool.ok(instance, 'POST', `/proposals/${proposalId}/reject`, { ...by, reason: `Not for ${item.key}.` });
      if (answer.status !== 'rejected') throw new Error(`reject of ${proposalId} answered ${JSON.stringify(answer)}`);
      this.acked.decisions.set(proposalId, 'rejected');
    } else {
      const answer = await this.pool.ok(instance, 'POST', `/proposals/${proposalId}/return`, { ...by, instructions: `Say which rule, for ${item.key}.` });
      if (answer.decision?.reason !== 'returned') throw new Error(`return of ${proposalId} answered ${JSON.stringify(answer)}`);
      this.acked.decisions.set(proposalId, 'returned');
    }
    this.wrote();
  }
}
