/** Calls a running server's JSON API and waits for the work the call started (`settle`) before answering. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON bodies
export async function callJson(base: string, settle: () => Promise<void>, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  await settle();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}
