import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_TABLE, ErrorCode, httpStatusForCode, ProtocolError, SnodoError } from '../src/index.js';

describe('the error table', () => {
  it('declares every code once, keyed by its code', () => {
    const rows = Object.entries(ERROR_TABLE);
    expect(rows).toHaveLength(Object.keys(ErrorCode).length);
    for (const [key, row] of rows) {
      expect(Number(key)).toBe(row.code);
      expect(ErrorCode[row.name]).toBe(row.code);
    }
  });

  it('maps codes to the HTTP status of the digest', () => {
    expect(httpStatusForCode(-32020)).toBe(400);
    expect(httpStatusForCode(-32021)).toBe(400);
    expect(httpStatusForCode(-32022)).toBe(400);
    expect(httpStatusForCode(-32601)).toBe(404);
    expect(httpStatusForCode(-32602)).toBe(200);
    expect(httpStatusForCode(12345)).toBe(200);
  });

  it('gives only the statuses the 2026-07-28 transport names, and 200: internal error and overload are 200', () => {
    for (const row of Object.values(ERROR_TABLE)) expect([200, 400, 404]).toContain(row.httpStatus);
    expect(httpStatusForCode(-32603)).toBe(200);
    expect(httpStatusForCode(-32000)).toBe(200);
    expect(httpStatusForCode(-32001)).toBe(200);
  });

  it('the core README lists every code', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    for (const row of Object.values(ERROR_TABLE)) expect(readme).toContain(`\`${row.code}\``);
  });

  it('brands survive a second copy of the class', () => {
    const error = new ProtocolError(-32602, 'x');
    const lookalike = Object.assign(Object.create(null), { [Symbol.for('snodo.ProtocolError')]: true });
    expect(ProtocolError.is(error)).toBe(true);
    expect(ProtocolError.is(lookalike)).toBe(true);
    expect(ProtocolError.is(new Error('x'))).toBe(false);
    expect(SnodoError.is(new SnodoError('SNODO_ERR_X', 'x'))).toBe(true);
  });
});
