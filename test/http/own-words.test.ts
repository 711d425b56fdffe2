import { readFileSync, readdirSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createMcpServer } from '../../src/mcp/create-mcp-server.js';
import { serviceBackend } from '../../src/mcp/service-backend.js';
import { buildTestApp, type TestApp } from '../support/build-test-app.js';

/**
 * Words of the internal contract that users have no document for. "SPEC" in capitals only: a
 * Kubernetes manifest's `spec:` key is the reader's own vocabulary.
 */
const INNER = /\bSPEC\b|\bSpec(ification)? (section|§)|§\s*\d|\b[Tt]he seed\b|extends the seed/;

let t: TestApp;
afterEach(async () => t?.close());

describe('the product describes itself in its own words', () => {
  it('the OpenAPI document and every MCP tool description cite no internal document', async () => {
    t = await buildTestApp();
    const openapi = JSON.stringify((await t.call('GET', '/api/v1/openapi.json')).body);
    expect(openapi).not.toMatch(INNER);

    const server = createMcpServer(serviceBackend(t.service, { name: null, role: 'admin' }));
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'words', version: '1' });
    await client.connect(clientSide);
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThan(0);
    expect(JSON.stringify(tools)).not.toMatch(INNER);
    expect(client.getInstructions()).not.toMatch(INNER);
    await client.close();
  });

  it('the README and the docs pages cite no internal document', () => {
    const pages = ['README.md', ...readdirSync('docs').filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
    for (const page of pages) {
      const hits = readFileSync(page, 'utf8').split('\n').filter((line) => INNER.test(line));
      expect(hits, page).toEqual([]);
    }
  });
});
