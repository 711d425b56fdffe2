/**
 * Wraps data for a prompt as JSON between `<tag>` and `</tag>` ("delimited data, never
 * instructions"). Every `<` inside the JSON is written as `\u003c`, so nothing in the data can close
 * the block or open another one, however it is phrased; JSON string escaping does the rest.
 */
export function dataBlock(tag: string, data: Record<string, unknown>): string {
  return `<${tag}>\n${JSON.stringify(data, null, 2).replace(/</g, '\\u003c')}\n</${tag}>`;
}

/** Parses a model's JSON reply; a reason when it is not a JSON object. */
export function parseJsonObject(content: string): { ok: true; value: Record<string, unknown> } | { ok: false; error: string } {
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch {
    return { ok: false, error: `the reply is not JSON: ${JSON.stringify(content.slice(0, 80))}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, error: 'the reply is not a JSON object' };
  return { ok: true, value: value as Record<string, unknown> };
}
