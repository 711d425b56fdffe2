// The history bench's traffic: what consumers submit, how experts and reviewers react, and when. It
// drives the real service (submitRequest, receiveReply, decide, returnProposal, cancelRequest) on an
// agenda of 10-minute steps of a fake clock; the build advances the clock and ticks the scheduler.
import { AppError } from '../../dist/errors.js';
import { prng, submitBody } from '../fixtures.js';
import { CONSUMERS, PER_DAY, RARE_WORD, topics } from './setup.js';

export const STEP_MS = 10 * 60_000;
/** Bumped whenever the traffic changes: a cached history built by another version is built again. */
export const TRAFFIC_VERSION = 3;
const DAY_STEPS = 86_400_000 / STEP_MS;

/**
 * What becomes of a new request (shares add up to 1). Every answer is one the first expert asked
 * gives, except: `skip` (the first expert replies "skip", the next one answers), `escalate` (the
 * first stays silent past escalation_after, the escalation target answers), `silent` (nobody answers:
 * the request gives up after give_up_after). Reviewers accept (15% of accepts with an edit), accept
 * days later (`late`), reject, or send back once (`sendback`, then accept the second answer);
 * `cancel`: the consumer cancels 20 min to 2 h after submitting, answered or not.
 */
const PLANS = [
  ['accept', 0.62], ['late', 0.05], ['sendback', 0.06], ['reject', 0.05],
  ['skip', 0.08], ['escalate', 0.07], ['cancel', 0.04], ['silent', 0.03],
];
/** Share of submissions that repeat a recent request's dedup_key (from any consumer). */
const REPEAT_SHARE = 0.05;
/** Share of new requests that carry a dedup_key. */
const KEYED_SHARE = 0.3;
const RARE_SHARE = 0.0002;
const EDIT_SHARE = 0.15;
/** How many request ids measure gets, drawn evenly from the whole history (reservoir sampling). */
const SAMPLES = 200;
const WORDS = ['limit', 'rule', 'owner', 'deadline', 'threshold', 'exception', 'process', 'approval', 'budget', 'contact', 'template', 'region'];

export class Traffic {
  constructor(seed = 21) {
    this.rand = prng(seed);
    this.topics = topics();
    this.service = null;
    this.step = 0;
    this.submitted = 0;
    /** step → operations due then. */
    this.agenda = new Map();
    /** request id → { kind, asks, returned }; dropped 3 days after submission. */
    this.plans = new Map();
    /** Asks handed to the transport since the last drain (reacted to once the step is idle). */
    this.inbox = [];
    this.recentKeyed = [];
    this.figures = { new: 0, repeats: 0, failed_at_submit: 0, answers: 0, skips: 0, accepts: 0, edits: 0, rejects: 0, sendbacks: 0, cancels: 0, refused: 0, errors: 0 };
    this.errors = [];
    /** What measure needs: request ids sampled from the whole history, one request with a long history. */
    this.facts = { sampleIds: [], richId: null };
    /** A transport that only notes each ask; nothing leaves the process. */
    this.transport = {
      name: 'console',
      threaded: false,
      send: async (m) => {
        if (m.purpose === 'ask' && m.requestId) this.inbox.push(m);
      },
      start: async () => {},
      stop: async () => {},
    };
  }

  pick(list) {
    return list[Math.floor(this.rand() * list.length)];
  }

  /** A whole number of steps for a delay of `lo`-`hi` minutes (at least one step). */
  minutes(lo, hi) {
    return Math.max(1, Math.round((lo + this.rand() * (hi - lo)) * 60_000 / STEP_MS));
  }

  later(steps, op) {
    const at = this.step + Math.max(1, steps);
    const due = this.agenda.get(at);
    if (due) due.push(op);
    else this.agenda.set(at, [op]);
  }

  /** Runs one operation; refusals a real client would see (4xx: already decided, cancelled, …) are counted. */
  async attempt(op) {
    try {
      await op();
    } catch (error) {
      if (error instanceof AppError && error.status < 500) {
        this.figures.refused++;
        return;
      }
      this.figures.errors++;
      if (this.errors.length < 5) this.errors.push(String(error?.stack ?? error));
    }
  }

  /** How many submissions this step brings (913 a day, spread evenly), never more than `left`. */
  submissionsNow(left) {
    const due = Math.floor(((this.step + 1) * PER_DAY) / DAY_STEPS) - Math.floor((this.step * PER_DAY) / DAY_STEPS);
    return Math.min(left, due);
  }

  /** The operations of one step: those due now and `count` submissions, all in one event-loop turn (one group commit). */
  runStep(count) {
    const due = this.agenda.get(this.step) ?? [];
    this.agenda.delete(this.step);
    const ops = due.map((op) => this.attempt(op));
    for (let i = 0; i < count; i++) ops.push(this.attempt(() => this.submit(++this.submitted)));
    return Promise.all(ops);
  }

  async submit(n) {
    const service = this.service;
    if (this.recentKeyed.length > 0 && this.rand() < REPEAT_SHARE) {
      this.figures.repeats++;
      await service.submitRequest({ ...this.pick(this.recentKeyed), consumer_id: this.pick(CONSUMERS) });
      return;
    }
    const topic = this.rand() < RARE_SHARE ? this.topics.rare : this.pick(this.topics.common);
    const body = submitBody(topic, n);
    const word = this.rand() < RARE_SHARE ? RARE_WORD : this.pick(WORDS);
    body.question = `${body.question} We need the ${word} that applies to customer ${n % 9973} before the next billing run; who owns it?`;
    if (this.rand() < KEYED_SHARE) {
      body.dedup_key = `case-${n}`;
      this.recentKeyed.push(body);
      if (this.recentKeyed.length > 200) this.recentKeyed.shift();
    }
    // Every random draw happens before the first await, so the history does not depend on the order
    // in which concurrent operations finish.
    const kind = this.plan();
    const cancelAfter = this.minutes(20, 120);
    const slot = n <= SAMPLES ? n - 1 : Math.floor(this.rand() * n);
    const result = await service.submitRequest(body);
    if (result.status === 'failed') this.figures.failed_at_submit++;
    this.figures.new++;
    const id = result.request_id;
    if (slot < SAMPLES) this.facts.sampleIds[slot] = id;
    this.plans.set(id, { kind, asks: 0, returned: false });
    this.later(3 * DAY_STEPS, () => this.plans.delete(id));
    if (kind === 'cancel') {
      this.later(cancelAfter, async () => {
        this.figures.cancels++;
        await service.cancelRequest(id, 'api');
      });
    }
  }

  plan() {
    let r = this.rand();
    for (const [kind, share] of PLANS) {
      if (r < share) return kind;
      r -= share;
    }
    return 'accept';
  }

  /** Reacts to the asks sent in the last step: an answer (or a skip) 10-100 minutes later, or silence. */
  drainInbox() {
    const inbox = this.inbox;
    this.inbox = [];
    for (const m of inbox) {
      const plan = this.plans.get(m.requestId);
      if (!plan) continue;
      const nth = plan.asks++;
      if (plan.kind === 'silent' || (plan.kind === 'escalate' && nth === 0)) continue;
      const skip = plan.kind === 'skip' && nth === 0;
      this.later(this.minutes(10, 100), () => this.reply(m.expertId, m.requestId, plan, skip));
    }
  }

  async reply(expertId, requestId, plan, skip) {
    const text = skip ? 'skip' : `For ${requestId.slice(-6)} the answer is ${Math.floor(this.rand() * 1000)}; see the handbook, section ${plan.asks}.`;
    const wait = plan.kind === 'late' ? this.minutes(24 * 60, 72 * 60) : this.minutes(10, 240);
    this.figures[skip ? 'skips' : 'answers']++;
    const result = await this.service.receiveReply({ expert_id: expertId, text, request_id: requestId });
    if (result.outcome !== 'proposed') return;
    this.later(wait, () => this.review(result.proposal_id, requestId, plan, text));
  }

  async review(proposalId, requestId, plan, text) {
    const service = this.service;
    const decided_by = `reviewer-${Math.floor(this.rand() * 5)}`;
    if (plan.kind === 'reject') {
      this.figures.rejects++;
      await service.decide(proposalId, 'rejected', { decided_by, reason: 'Not what the consumer needs.' });
    } else if (plan.kind === 'sendback' && !plan.returned) {
      plan.returned = true;
      this.figures.sendbacks++;
      await service.returnProposal(proposalId, { decided_by, instructions: 'Please name the exact figure and who approved it.' });
    } else {
      const edit = this.rand() < EDIT_SHARE;
      this.figures.accepts++;
      if (edit) this.figures.edits++;
      await service.decide(proposalId, 'accepted', { decided_by, ...(edit ? { answer: `${text} (Checked by the reviewer.)` } : {}) });
      if (plan.returned && this.facts.richId === null) this.facts.richId = requestId;
    }
  }
}
