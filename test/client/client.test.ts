import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { ClientError, createClient } from '../../src/client/client.js';

/** What the CLI says when something that is not a well-behaved expertq answers (a proxy, a bare 404). */

let server: Server | undefined;
afterEach(() => new Promise<void>((done) => (server ? server.close(() => done()) : done())));

/** A local server answering every request with this status, content type and body. */
async function answering(status: number, body: string, type = 'text/plain'): Promise<string> {
  server = createServer((_req, res) => {
    res.writeHead(status, body ? { 'content-type': type } : {});
    res.end(body);
  });
  await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done));
  const address = server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
}

async function failureOf(url: string, path: string): Promise<ClientError> {
  const client = createClient({ config: join(tmpdir(), 'expertq-no-such-config.yaml'), url }, {});
  const error = await client.get(path).then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(ClientError);
  return error as ClientError;
}

describe('a failure answer without expertq JSON', () => {
  it('an empty 404 names the status, its reason phrase and what was asked, never a blank reason', async () => {
    const url = await answering(404, '');
    const error = await failureOf(url, '/requests/req_1');
    expect(error.message).toContain('404 Not Found');
    expect(error.message).toContain(`GET ${url}/api/v1/requests/req_1`);
    expect(error.message).not.toMatch(/: $|:\s*\n|error: $/);
    expect(error.exitCode).toBe(1);
  });

  it('a 502 HTML page from a proxy reads the same way', async () => {
    const url = await answering(502, '<html><body>Bad gateway</body></html>', 'text/html');
    const error = await failureOf(url, '/experts');
    expect(error.message).toContain('502 Bad Gateway');
    expect(error.message).toContain(`GET ${url}/api/v1/experts`);
  });

  it('an expertq error body still gives its code and message', async () => {
    const url = await answering(404, JSON.stringify({ error: { code: 'not_found', message: 'No request req_1.' } }), 'application/json');
    const error = await failureOf(url, '/requests/req_1');
    expect(error.message).toBe('404 not_found: No request req_1.');
    expect(error.code).toBe('not_found');
  });
});
