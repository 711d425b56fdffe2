import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/load-config.js';
import { createLogger } from '../../src/log.js';
import { Capture } from '../support/capture.js';
import { cleanEnv, makeWorkspace, runCli } from '../support/cli.js';

describe('logs', () => {
  it('are one JSON object per line when not on a terminal, with secrets redacted', () => {
    const out = new Capture();
    createLogger(out, 'info', undefined).info({ headers: { authorization: 'Bearer s3cret' }, request_id: 'r1' }, 'request accepted');
    const [line] = out.lines;
    expect(line).toMatchObject({ level: 30, msg: 'request accepted', request_id: 'r1', headers: { authorization: '[redacted]' } });
  });

  it('are readable lines with LOG_FORMAT=pretty: time with its zone, level word, message, fields', () => {
    const out = new Capture();
    createLogger(out, 'info', 'pretty').warn({ request_id: 'r1' }, 'LLM call unusable; fell back');
    expect(out.text).not.toMatch(/^\{/);
    expect(out.text).toMatch(/^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} [+-]\d{4}\] WARN: LLM call unusable; fell back\n\s+request_id: "r1"/);
  });

  it('LOG_LEVEL hides lines below it', () => {
    const out = new Capture();
    const log = createLogger(out, 'warn', 'json');
    log.info('not shown');
    log.warn('shown');
    expect(out.lines.map((l) => l.msg)).toEqual(['shown']);
  });

  it('a wrong LOG_LEVEL or LOG_FORMAT is a one-line start-up error', async () => {
    expect(() => createLogger(new Capture(), 'loud', undefined)).toThrow(ConfigError);
    expect(() => createLogger(new Capture(), 'info', 'xml')).toThrow('LOG_FORMAT must be json or pretty (got "xml").');
    const ws = await makeWorkspace();
    try {
      const res = await runCli(['serve', '--config', ws.configFile], { env: cleanEnv({ LOG_LEVEL: 'loud' }) });
      expect(res.code).toBe(1);
      expect(res.stderr.trim()).toBe('expertq: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "loud").');
    } finally {
      ws.remove();
    }
  });
});
