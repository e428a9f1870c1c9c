import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dispatch } from '../src/index.js';
import { demoServer, initialize, modern } from './helpers/demo.js';
import { run } from './helpers/run.js';

const runtime = demoServer();
const METHODS = [
  'initialize',
  'ping',
  'server/discover',
  'tools/list',
  'tools/call',
  'logging/setLevel',
  'subscriptions/listen',
  'notifications/cancelled',
  'foo',
];

const json = fc.jsonValue({ maxDepth: 4 });
const idLike = fc.oneof(fc.integer(), fc.string(), fc.constant(null), fc.double(), fc.boolean(), json);
const message = fc.oneof(
  json,
  fc.record(
    {
      jsonrpc: fc.oneof(fc.constant('2.0'), fc.string()),
      id: idLike,
      method: fc.oneof(fc.constantFrom(...METHODS), fc.string(), json),
      params: fc.oneof(json, fc.dictionary(fc.string(), json)),
    },
    { requiredKeys: [] },
  ),
  // Valid requests with one part mutated.
  fc
    .tuple(
      fc.constantFrom(...METHODS),
      fc.constantFrom('params', '_meta', 'id', 'name', 'arguments', 'cursor'),
      json,
    )
    .map(([method, part, value]) => {
      const base: any =
        method === 'initialize'
          ? initialize('2025-06-18')
          : modern(method, { name: 'echo', arguments: { text: 'x' } });
      if (part === 'params' || part === 'id') base[part] = value;
      else if (part === '_meta') base.params._meta = value;
      else base.params[part] = value;
      return base;
    }),
);

function wellFormedResponse(response: any): boolean {
  if (typeof response !== 'object' || response === null || response.jsonrpc !== '2.0' || !('id' in response))
    return false;
  if ('result' in response)
    return typeof response.result === 'object' && response.result !== null && !('error' in response);
  return Number.isInteger(response.error?.code) && typeof response.error?.message === 'string';
}

describe('dispatch never throws', () => {
  it('random and mutated messages yield a well-formed JSON-RPC response or nothing', async () => {
    const { outcome } = await run(runtime, initialize('2025-06-18'));
    const session = (outcome as any).session;
    await fc.assert(
      fc.asyncProperty(message, fc.boolean(), async (value, withSession) => {
        const result = await run(runtime, value, withSession ? { session } : {});
        if (result.outcome.type === 'none') {
          expect(result.response).toBeUndefined();
          return;
        }
        expect(wellFormedResponse(result.response)).toBe(true);
        for (const note of result.notifications) expect((note as any).method).toMatch(/^notifications\//);
      }),
      { numRuns: 600 },
    );
  });

  it('a response to a request always echoes a valid id, or null', async () => {
    await fc.assert(
      fc.asyncProperty(message, async (value) => {
        const outcome = await dispatch(runtime, value);
        if (outcome.type !== 'response') return;
        const id = outcome.message.id;
        const original = (value as any)?.id;
        expect(id === null || id === original || typeof id === 'object').toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
