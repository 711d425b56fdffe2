/** The OpenAPI document as @fastify/swagger builds it: plain JSON. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a JSON document walked generically
type Json = any;

/** The tags operations are grouped under, in the order readers meet them. */
export const TAGS = [
  { name: 'requests', description: 'Questions consumers submit, and how each one is going.' },
  { name: 'proposals', description: 'Answers waiting for a reviewer, and the reviewer’s decisions.' },
  { name: 'experts', description: 'The expert registry: who answers which topics, mutes and away spells.' },
  { name: 'replies', description: 'Experts’ replies, from whichever channel they came in on.' },
  { name: 'answers', description: 'The answer library: accepted answers offered again for close questions.' },
  { name: 'insights', description: 'What the service did, at a glance: outcomes, times, load per expert, library reuse.' },
  { name: 'consumers', description: 'Systems that submit questions and receive answers by webhook.' },
  { name: 'deliveries', description: 'Webhook and in-process deliveries of events to consumers.' },
  { name: 'audit', description: 'Every step of a request, in order.' },
  { name: 'operations', description: 'Running the service: the instances serving from one database.' },
  { name: 'auth', description: 'Who the caller is; signing in and out with the organisation’s identity provider.' },
] as const;

/** What each status means, for answers whose route gives no wording of its own. */
const STATUS_TEXT: Record<string, string> = {
  200: 'OK',
  201: 'Created',
  204: 'Done; no body',
  302: 'Redirect',
  400: 'The request is invalid: a body, query or path parameter (`details` names each problem), or a body that is no JSON',
  401: 'No credentials, or ones the server does not accept (an unknown token, an expired sign-in)',
  403: 'Not allowed: the caller’s role may not call this, a sign-in cookie sent from another site, or a `Host` the server does not answer for',
  404: 'No such record',
  409: 'The record is in a state that does not allow this',
  413: 'The body is larger than `server.body_limit`',
  429: 'A quota is used up; `Retry-After` says when to try again',
  503: 'The server is shutting down or its database cannot take writes; nothing was changed. `Retry-After` says when to try again',
};

/** Every `$ref` under `node`. */
function refsIn(node: Json, into: Set<string>): Set<string> {
  if (Array.isArray(node)) for (const item of node) refsIn(item, into);
  else if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') into.add(value);
      else refsIn(value, into);
    }
  }
  return into;
}

/**
 * Drops the component schemas nothing refers to. The zod provider writes an input and an output form
 * of every named schema, and most are used one way only.
 */
function dropUnusedSchemas(doc: Json): void {
  const schemas: Record<string, Json> = doc.components?.schemas ?? {};
  const used = new Set<string>();
  let frontier = refsIn({ paths: doc.paths, webhooks: doc.webhooks }, new Set());
  while (frontier.size > 0) {
    const next = new Set<string>();
    for (const ref of frontier) {
      const name = ref.replace('#/components/schemas/', '');
      if (used.has(name) || !(name in schemas)) continue;
      used.add(name);
      refsIn(schemas[name], next);
    }
    frontier = next;
  }
  doc.components.schemas = Object.fromEntries(Object.entries(schemas).filter(([name]) => used.has(name)));
}

/** `SubmitRequestInput` → `SubmitRequest` where the output form is not in the document: one name per shape. */
function dropInputSuffixes(doc: Json): Json {
  const schemas: Record<string, Json> = doc.components.schemas;
  const renames = Object.keys(schemas).filter((name) => name.endsWith('Input') && !(name.slice(0, -5) in schemas));
  if (renames.length === 0) return doc;
  let text = JSON.stringify(doc);
  for (const name of renames) text = text.replaceAll(`"#/components/schemas/${name}"`, `"#/components/schemas/${name.slice(0, -5)}"`);
  const renamed = JSON.parse(text);
  renamed.components.schemas = Object.fromEntries(Object.entries(renamed.components.schemas).map(([name, schema]) => [renames.includes(name) ? name.slice(0, -5) : name, schema]));
  return renamed;
}

const acceptsNull = (schema: Json) => Array.isArray(schema?.anyOf) && schema.anyOf.some((s: Json) => s?.type === 'null');

/** One operation: answers in status order with words, no `null` bodies, an optional body said so. */
function tidyOperation(operation: Json): void {
  const body = operation.requestBody?.content?.['application/json']?.schema;
  // A route whose body may be left out (`.nullish()`) is called without one; say so.
  if (acceptsNull(body)) operation.requestBody.required = false;
  const responses: Record<string, Json> = operation.responses ?? {};
  operation.responses = Object.fromEntries(
    Object.keys(responses).sort().map((status) => {
      const response = { ...responses[status] };
      if (response.description === 'Default Response') response.description = STATUS_TEXT[status] ?? 'Answer';
      // `z.null()` answers (204, a redirect) have no body at all.
      if (response.content?.['application/json']?.schema?.type === 'null') delete response.content;
      return [status, response];
    }),
  );
}

/**
 * The last step of building the document (`transformObject`): tags with their descriptions, tidy
 * operations, no unused components.
 */
export function tidyDocument(doc: Json): Json {
  for (const path of Object.values(doc.paths ?? {}) as Json[]) {
    for (const operation of Object.values(path)) tidyOperation(operation);
  }
  dropUnusedSchemas(doc);
  return { ...dropInputSuffixes(doc), tags: TAGS };
}
