import { describe, expect, it } from 'vitest';
import * as entry from '../src/index.js';

describe('public surface', () => {
  it('exports exactly the documented names', () => {
    expect(Object.keys(entry).sort()).toEqual([
      'DEFAULT_BODY_TIMEOUT',
      'DEFAULT_PATH',
      'ERRORS',
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

  it('declares each HTTP-level error once: code, message, status', () => {
    const { ERRORS } = entry;
    const made = {
      SNODO_ERR_BODY_TOO_LARGE: new ERRORS.SNODO_ERR_BODY_TOO_LARGE(1),
      SNODO_ERR_BODY_TIMEOUT: new ERRORS.SNODO_ERR_BODY_TIMEOUT(1),
      SNODO_ERR_BODY_ABORTED: new ERRORS.SNODO_ERR_BODY_ABORTED(),
    };
    expect(Object.keys(made)).toEqual(Object.keys(ERRORS));
    const rows = Object.entries(made).map(([key, error]) => {
      return { key, code: error.code, status: error.statusCode, message: error.message };
    });
    expect(rows).toEqual([
      {
        key: 'SNODO_ERR_BODY_TOO_LARGE',
        code: 'SNODO_ERR_BODY_TOO_LARGE',
        status: 413,
        message: 'Request body exceeds 1 bytes',
      },
      {
        key: 'SNODO_ERR_BODY_TIMEOUT',
        code: 'SNODO_ERR_BODY_TIMEOUT',
        status: 408,
        message: 'Request body not complete within 1 ms',
      },
      {
        key: 'SNODO_ERR_BODY_ABORTED',
        code: 'SNODO_ERR_BODY_ABORTED',
        status: 400,
        message: 'Request body aborted by the client',
      },
    ]);
  });
});
