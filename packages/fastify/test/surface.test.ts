import { describe, expect, it } from 'vitest';
import * as entry from '../src/index.js';

describe('public surface', () => {
  it('exports exactly the documented names', () => {
    expect(Object.keys(entry).sort()).toEqual([
      'DEFAULT_BODY_TIMEOUT',
      'DEFAULT_PATH',
      'PLUGIN_NAME',
      'default',
      'mcpBearerAuth',
      'snodo',
      'snodoFastify',
    ]);
    expect(entry.default).toBe(entry.snodo);
    expect(entry.snodoFastify).toBe(entry.snodo);
    expect(entry.DEFAULT_BODY_TIMEOUT).toBe(10_000);
    expect(entry.DEFAULT_PATH).toBe('/mcp');
  });

  it('refuses bodies with core rows: code, status (statusCode for Fastify), message', async () => {
    const { CORE_ERRORS } = await import('@snodo/core');
    const rows = ['BODY_TOO_LARGE', 'BODY_TIMEOUT', 'BODY_ABORTED'].map((name) => {
      const { code, status } = CORE_ERRORS[`SNODO_ERR_${name}` as keyof typeof CORE_ERRORS];
      return [code, status];
    });
    expect(rows).toEqual([
      ['SNODO_ERR_BODY_TOO_LARGE', 413],
      ['SNODO_ERR_BODY_TIMEOUT', 408],
      ['SNODO_ERR_BODY_ABORTED', 400],
    ]);
  });
});
