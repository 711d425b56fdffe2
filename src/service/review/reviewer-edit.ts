import type { ValidateFunction } from 'ajv';
import { badRequest } from '../../errors.js';
import type { ConsumerRecord, ProposalRecord, RequestRecord } from '../../domain/records.js';
import { compileSchema } from '../../llm/json-schema.js';
import { DEFAULT_KIND_SCHEMA } from '../../llm/structure-answer.js';
import { kindSchemaOf } from '../consumers/index.js';
import type { Reads } from '../../store/store.js';
import type { Engine } from '../engine/index.js';
import type { DecisionInput } from './apply-decision.js';

export type ReviewerEdit = Pick<ProposalRecord, 'answer' | 'structured' | 'original_answer' | 'provenance'>;

/**
 * The accepted proposal's fields after a reviewer's edit, or null when nothing changed. A structured
 * form that only mirrors the answer (`{text}`) follows the edit; one made by the LLM or against a kind
 * schema would no longer describe the edited text, so the reviewer sends the corrected `structured` too
 * (validated against the kind's schema, or the default `{summary, facts}` with an LLM).
 */
export async function reviewerEdit(
  llm: Engine['llm'],
  reads: Reads,
  proposal: ProposalRecord,
  request: RequestRecord,
  input: DecisionInput,
): Promise<ReviewerEdit | null> {
  const answer = input.answer?.trim();
  const changed = answer !== undefined && answer !== proposal.answer;
  if (input.structured !== undefined) checkStructured(llm, await reads.consumers.list(), request, input.structured);
  if (!changed && input.structured === undefined) return null;
  const text = changed ? answer : proposal.answer;
  let structured = input.structured;
  if (structured === undefined) {
    if (!isTextOnly(proposal.structured)) {
      throw badRequest('The structured form was made from the expert\'s text and would not match your edit: send the corrected structured form with the edited answer.');
    }
    structured = { text };
  }
  return {
    answer: text,
    structured,
    original_answer: proposal.original_answer ?? proposal.answer,
    provenance: { ...proposal.provenance, edited_by: input.decided_by },
  };
}

const isTextOnly = (structured: unknown) =>
  typeof structured === 'object' && structured !== null && Object.keys(structured).length === 1 && 'text' in structured;

/**
 * A reviewer's `structured` must validate against the schema a consumer registered for the request's
 * kind (`kind_schemas`), or, with an LLM, the default `{summary, facts}`; without either there is no
 * structure to correct beyond the text itself.
 */
function checkStructured(llm: Engine['llm'], consumers: readonly ConsumerRecord[], request: RequestRecord, structured: unknown): void {
  const schema = kindSchemaOf(consumers, request.kind) ?? (llm ? DEFAULT_KIND_SCHEMA : null);
  if (schema === null) {
    throw badRequest(`No consumer registered a schema for kind "${request.kind}", so there is no structured form to edit; edit the answer instead.`);
  }
  let validate: ValidateFunction;
  try {
    validate = compileSchema(schema);
  } catch (error) {
    throw badRequest(`The schema registered for kind "${request.kind}" is not a valid JSON Schema: ${(error as Error).message}`);
  }
  if (!validate(structured)) {
    const details = (validate.errors ?? []).map((e) => ({ path: `structured${e.instancePath.replace(/\//g, '.')}`, message: e.message ?? 'is invalid' }));
    throw badRequest(`structured does not match the schema of kind "${request.kind}".`, details);
  }
}
