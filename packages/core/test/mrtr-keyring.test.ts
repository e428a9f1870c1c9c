import { describe, expect, it } from 'vitest';
import { createServer, MAX_MRTR_KEYS, type MrtrKey, type Runtime, SnodoError } from '../src/index.js';
import { modern } from './helpers/demo.js';
import { ELICIT, featureServer, SECRET } from './helpers/features.js';
import { run } from './helpers/run.js';

const K1: MrtrKey = { name: 'k1', secret: 'the-first-key-of-the-ring-32-bytes!!' };
const K2: MrtrKey = { name: 'k2', secret: 'the-second-key-of-the-ring-32-bytes!' };
const accept = { elicit: { action: 'accept', content: { name: 'Ada' } } };

const ring = (...keys: MrtrKey[]) => featureServer({ mrtr: { keys } }).runtime;

/** The first round of `ask` on `runtime`: its requestState. */
async function ask(runtime: Runtime): Promise<string> {
  const { response } = await run(runtime, modern('tools/call', { name: 'ask', arguments: {} }, ELICIT));
  expect(response.result.resultType).toBe('input_required');
  return response.result.requestState;
}

/** The retry of `ask` on `runtime` with `state`: the greeting, or the refusal's message. */
async function retry(runtime: Runtime, state: string): Promise<string> {
  const { response } = await run(
    runtime,
    modern('tools/call', { name: 'ask', arguments: {}, requestState: state, inputResponses: accept }, ELICIT),
  );
  if (response.error) {
    expect(response.error.code).toBe(-32602);
    return response.error.message;
  }
  return response.result.content[0].text;
}

function refusal(mrtr: Parameters<typeof createServer>[0]['mrtr']): string {
  try {
    createServer({ name: 'r', version: '1', mrtr });
  } catch (error) {
    expect(SnodoError.is(error) && error.code).toBe('SNODO_ERR_INVALID_DEFINITION');
    return (error as Error).message;
  }
  throw new Error('createServer accepted the keyring');
}

const keys = (count: number): MrtrKey[] =>
  Array.from({ length: count }, (_, i) => ({ name: `key-${i}`, secret: `${'s'.repeat(32)}${i}` }));

describe('the MRTR keyring (mrtr.keys)', () => {
  it('signs with the first key and names it in the state; every key of the ring verifies', async () => {
    const state = await ask(ring(K2, K1));
    expect(state.startsWith('k2.')).toBe(true);
    expect(await retry(ring(K2), state)).toBe('Hello, Ada!');
    expect(await retry(ring(K1, K2), state)).toBe('Hello, Ada!');
    expect(await retry(ring(K1), state)).toBe(
      'Invalid requestState: requestState was signed with key "k2", which this server does not hold',
    );
  });

  it('rotates with no failed retry when the new key is added second first, then moved first, then the old dropped', async () => {
    // Each step: an instance still on the previous ring and one on the next must accept each
    // other's states, in both directions.
    const steps = [[K1], [K1, K2], [K2, K1], [K2]];
    for (let i = 0; i + 1 < steps.length; i++) {
      const before = ring(...(steps[i] as MrtrKey[]));
      const after = ring(...(steps[i + 1] as MrtrKey[]));
      expect(await retry(after, await ask(before))).toBe('Hello, Ada!');
      expect(await retry(before, await ask(after))).toBe('Hello, Ada!');
    }
    // Skipping the first step (moving the new key first before every instance holds it) fails.
    expect(await retry(ring(K1), await ask(ring(K2, K1)))).toMatch(/does not hold/);
  });

  it('treats mrtr.secret as the one-key ring named "default"', async () => {
    const single = featureServer({ mrtr: { secret: SECRET } }).runtime;
    const state = await ask(single);
    expect(state.startsWith('default.')).toBe(true);
    expect(await retry(ring(K1, { name: 'default', secret: SECRET }), state)).toBe('Hello, Ada!');
    expect(await retry(single, await ask(ring({ name: 'default', secret: SECRET })))).toBe('Hello, Ada!');
  });

  it('refuses a state whose key name was swapped for another key of the ring', async () => {
    const both = ring(K1, K2);
    const state = await ask(both);
    expect(await retry(both, `k2${state.slice(2)}`)).toMatch(/integrity check/);
    expect(await retry(both, `k1.${state}`)).toMatch(/malformed/);
    expect(await retry(both, state.slice(state.indexOf('.') + 1))).toMatch(/malformed|does not hold/);
  });

  it(`takes ${MAX_MRTR_KEYS} keys and refuses ${MAX_MRTR_KEYS + 1} or none`, async () => {
    expect(await retry(ring(...keys(MAX_MRTR_KEYS)), await ask(ring(...keys(1))))).toBe('Hello, Ada!');
    expect(refusal({ keys: keys(MAX_MRTR_KEYS + 1) })).toBe('mrtr.keys must be an array of 1 to 8 keys');
    expect(refusal({ keys: [] })).toBe('mrtr.keys must be an array of 1 to 8 keys');
  });

  it('needs secrets of at least 32 bytes, as text or bytes', () => {
    expect(() =>
      createServer({ name: 'r', version: '1', mrtr: { keys: [{ name: 'a', secret: 'x'.repeat(32) }] } }),
    ).not.toThrow();
    expect(() =>
      createServer({ name: 'r', version: '1', mrtr: { keys: [{ name: 'a', secret: new Uint8Array(32) }] } }),
    ).not.toThrow();
    expect(refusal({ keys: [K1, { name: 'b', secret: 'x'.repeat(31) }] })).toBe(
      'mrtr.keys[1].secret must be at least 32 bytes',
    );
    expect(refusal({ keys: [{ name: 'b', secret: new Uint8Array(31) }] })).toBe(
      'mrtr.keys[0].secret must be at least 32 bytes',
    );
    // Bytes, not characters: 16 two-byte characters are 32 bytes.
    expect(() => createServer({ name: 'r', version: '1', mrtr: { secret: 'é'.repeat(16) } })).not.toThrow();
    expect(refusal({ secret: 'é'.repeat(15) })).toBe('mrtr.secret must be at least 32 bytes');
  });

  it('refuses duplicate and malformed names, and secret together with keys', () => {
    expect(refusal({ keys: [K1, { ...K2, name: 'k1' }] })).toBe('mrtr.keys: duplicate name "k1"');
    expect(refusal({ keys: [{ ...K1, name: 'has.dot' }] })).toBe(
      'mrtr.keys[0].name must match ^[A-Za-z0-9_-]{1,64}$, got "has.dot"',
    );
    expect(refusal({ keys: [{ ...K1, name: 'n'.repeat(65) }] })).toMatch(/mrtr.keys\[0\].name must match/);
    expect(() => ring({ ...K1, name: 'n'.repeat(64) })).not.toThrow();
    expect(refusal({ secret: SECRET, keys: [K1] })).toBe(
      'mrtr: give secret (one key) or keys (a keyring), not both',
    );
  });
});
