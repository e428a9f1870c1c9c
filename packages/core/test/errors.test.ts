import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { refusal } from '../src/http/responses.js';
import {
  ClientRequestError,
  CORE_ERRORS,
  defineErrors,
  ERROR_TABLE,
  ErrorCode,
  ExecutorError,
  httpStatusForCode,
  ProtocolError,
  SnodoError,
  UriTemplateError,
} from '../src/index.js';

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

describe("core's local error table", () => {
  const rows = Object.entries(CORE_ERRORS);

  it('declares 35 codes once each, keyed by their code, each a SNODO_ERR_ code', () => {
    expect(rows).toHaveLength(35);
    for (const [key, row] of rows) {
      expect(row.code).toBe(key);
      expect(key).toMatch(/^SNODO_ERR_[A-Z_]+$/);
      expect(row.message.length).toBeGreaterThan(0);
    }
    expect(Object.isFrozen(CORE_ERRORS)).toBe(true);
  });

  it('gives HTTP statuses only as 4xx/5xx numbers, and refusals take theirs from the row', () => {
    for (const [code, row] of rows) {
      if (row.status === undefined) continue;
      expect(row.status, code).toBeGreaterThanOrEqual(400);
      expect(row.status, code).toBeLessThan(600);
    }
    expect(refusal('SNODO_ERR_BODY_TOO_LARGE', null, 'x').status).toBe(413);
    expect(refusal('SNODO_ERR_SESSION_NOT_FOUND', 7, 'x').status).toBe(404);
  });

  it('the core README lists every code with its status', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    for (const [code, row] of rows) {
      expect(readme, code).toContain(`| \`${code}\` | ${row.status ?? '—'} |`);
    }
  });

  it('defineErrors builds frozen rows keyed by their code, with the status only when given', () => {
    const table = defineErrors({ SNODO_ERR_A: ['a'], SNODO_ERR_B: ['b', 418] });
    expect(table).toEqual({
      SNODO_ERR_A: { code: 'SNODO_ERR_A', message: 'a' },
      SNODO_ERR_B: { code: 'SNODO_ERR_B', message: 'b', status: 418 },
    });
    expect(Object.isFrozen(table.SNODO_ERR_B)).toBe(true);
  });
});

describe('error brands across two copies of the classes', () => {
  it('instanceof and is hold both ways for every error class, and subclasses stay apart', async () => {
    vi.resetModules();
    const copy = await import('../src/index.js');
    expect(copy.SnodoError).not.toBe(SnodoError);
    const pairs: [unknown, unknown, (new (...args: never[]) => unknown)[]][] = [
      [new copy.SnodoError('SNODO_ERR_X', 'x'), new SnodoError('SNODO_ERR_X', 'x'), [SnodoError]],
      [new copy.ProtocolError(-32602, 'x'), new ProtocolError(-32602, 'x'), [ProtocolError]],
      [new copy.ClientRequestError(-1, 'x'), new ClientRequestError(-1, 'x'), [ClientRequestError]],
      [
        new copy.ExecutorError('SNODO_ERR_OVERLOADED'),
        new ExecutorError('SNODO_ERR_OVERLOADED'),
        [ExecutorError, SnodoError],
      ],
      [new copy.UriTemplateError('{', 'x'), new UriTemplateError('{', 'x'), [UriTemplateError, SnodoError]],
    ];
    for (const [foreign, own, classes] of pairs) {
      for (const cls of classes) expect(foreign instanceof cls, cls.name).toBe(true);
      const foreignClass = (copy as unknown as Record<string, new () => unknown>)[classes[0]!.name]!;
      expect(own instanceof foreignClass).toBe(true);
    }
    expect(new SnodoError('SNODO_ERR_X', 'x') instanceof ExecutorError).toBe(false);
    expect(new ProtocolError(-1, 'x') instanceof SnodoError).toBe(false);
    expect(new Error('x') instanceof ProtocolError).toBe(false);
    class Mine extends SnodoError {}
    expect(new SnodoError('SNODO_ERR_X', 'x') instanceof Mine).toBe(false);
    expect(new Mine('SNODO_ERR_X', 'x') instanceof SnodoError).toBe(true);
  });
});
