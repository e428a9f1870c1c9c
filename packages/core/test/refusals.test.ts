import { describe, expect, it } from 'vitest';
import { type RefusalReason, refusalReason, refusalWireError } from '../src/engine/refusal.js';
import { ExecutorError } from '../src/executor/errors.js';
import { refusedResponse } from '../src/http/responses.js';
import { SnodoError } from '../src/index.js';
import { errorResponse } from '../src/jsonrpc/types.js';

/**
 * The one refusal mapping, every transport's: reason → JSON-RPC error (undefined: no answer due),
 * and HTTP's status and Retry-After by reason, without and with `overloadRetryAfter: 7`.
 */
const TABLE: [
  RefusalReason,
  { code: number; message: string } | undefined,
  [number, string?],
  [number, string?],
][] = [
  ['SNODO_ERR_CANCELLED', undefined, [200], [200]],
  ['SNODO_ERR_REQUEST_TIMEOUT', { code: -32001, message: 'Request timed out' }, [200], [200]],
  ['SNODO_ERR_OVERLOADED', { code: -32000, message: 'Server overloaded' }, [200], [503, '7']],
  [
    'SNODO_ERR_EXECUTOR_CLOSED',
    { code: -32000, message: 'Server overloaded: the executor is closed' },
    [200],
    [503, '7'],
  ],
  [
    'SNODO_ERR_SUBSCRIPTION_LIMIT',
    { code: -32000, message: 'Server overloaded: too many open subscriptions' },
    [503, '1'],
    [503, '1'],
  ],
  [
    'SNODO_ERR_CONTROL_TIMEOUT',
    { code: -32603, message: 'The instance holding this session did not answer: try again' },
    [503, '1'],
    [503, '1'],
  ],
  ['SNODO_ERR_INTERNAL', { code: -32603, message: 'Internal error' }, [200], [200]],
];

describe('the refusal mapping (engine/refusal.ts)', () => {
  it.each(TABLE)(
    '%s: its JSON-RPC error, and over HTTP its status and Retry-After',
    (reason, wire, plain, retrying) => {
      expect(refusalWireError(reason)).toEqual(wire);
      if (wire === undefined) return;
      for (const [overloadRetryAfter, [status, retryAfter]] of [
        [undefined, plain],
        [7, retrying],
      ] as const) {
        const answer = refusedResponse(reason, errorResponse(1, wire), overloadRetryAfter);
        expect(answer.status).toBe(status);
        expect(answer.headers['retry-after']).toBe(retryAfter);
        expect(JSON.parse(answer.body)).toEqual({ jsonrpc: '2.0', id: 1, error: wire });
      }
    },
  );

  it('reads the reason from what failed: an executor error by its code, a control timeout, anything else is internal', () => {
    for (const code of [
      'SNODO_ERR_CANCELLED',
      'SNODO_ERR_REQUEST_TIMEOUT',
      'SNODO_ERR_OVERLOADED',
      'SNODO_ERR_EXECUTOR_CLOSED',
    ] as const)
      expect(refusalReason(new ExecutorError(code))).toBe(code);
    expect(refusalReason(new SnodoError('SNODO_ERR_CONTROL_TIMEOUT', 'no answer'))).toBe(
      'SNODO_ERR_CONTROL_TIMEOUT',
    );
    expect(refusalReason(new SnodoError('SNODO_ERR_INVALID_OPTION', 'bad'))).toBe('SNODO_ERR_INTERNAL');
    expect(refusalReason(new Error('bug'))).toBe('SNODO_ERR_INTERNAL');
    expect(refusalReason(undefined)).toBe('SNODO_ERR_INTERNAL');
  });
});
