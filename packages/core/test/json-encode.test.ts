import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { decodeJson } from '../src/json/decode.js';
import { encodeJson } from '../src/json/encode.js';
import { JsonInt } from '../src/json/int.js';

const HOOK = Symbol.for('snodo.JsonInt.encodeHook');
const ASCII_ONLY = /^[\x00-\x7f]*$/;

afterEach(() => {
  vi.restoreAllMocks();
  // Whatever happened, encodeJson must leave no hook behind.
  expect((globalThis as any)[HOOK]).toBeUndefined();
});

describe('encodeJson: JsonInt', () => {
  it('writes JsonInt as its raw literal anywhere in the value', () => {
    const max = new JsonInt('9223372036854775807');
    const min = new JsonInt('-9223372036854775808');
    expect(encodeJson(max)).toBe('9223372036854775807');
    expect(encodeJson([max, min, 1])).toBe('[9223372036854775807,-9223372036854775808,1]');
    expect(encodeJson({ jsonrpc: '2.0', id: max, result: { deep: [{ n: min }], again: max } })).toBe(
      '{"jsonrpc":"2.0","id":9223372036854775807,"result":{"deep":[{"n":-9223372036854775808}],"again":9223372036854775807}}',
    );
  });

  it('echoes decoded big integers byte for byte', () => {
    const text =
      '{"jsonrpc":"2.0","id":9223372036854775807,"method":"m","params":{"requestId":-9223372036854775808,' +
      '"_meta":{"progressToken":9007199254740993}}}';
    const decoded = decodeJson(text);
    expect(decoded.ok).toBe(true);
    expect(encodeJson(decoded.ok ? decoded.value : undefined)).toBe(text);
  });

  it('writes a JsonInt made by another copy of core', async () => {
    const specifier = '../src/json/int.js?second-copy';
    const copy = (await import(/* @vite-ignore */ specifier)) as { JsonInt: typeof JsonInt };
    expect(copy.JsonInt).not.toBe(JsonInt);
    const foreign = new copy.JsonInt('9223372036854775807');
    expect(JsonInt.is(foreign)).toBe(true);
    expect(encodeJson({ id: foreign })).toBe('{"id":9223372036854775807}');
  });

  it('writes the literal as a string under plain JSON.stringify (documented)', () => {
    expect(JSON.stringify({ id: new JsonInt('9223372036854775807') })).toBe('{"id":"9223372036854775807"}');
  });

  it('refuses a tampered literal instead of writing invalid JSON', () => {
    const n = new JsonInt('1');
    (n as { literal: string }).literal = '1,"injected":true';
    expect(() => encodeJson({ id: n })).toThrow(TypeError);
  });

  it('never mistakes a value for a placeholder', () => {
    // Pin the nonce for the first attempt only, and plant a clash with it: encodeJson must
    // notice and retry with a new nonce.
    vi.spyOn(Math, 'random').mockReturnValueOnce(0.5);
    const nonce = (0.5).toString(36).slice(2, 12);
    const planted = `@@snodo_JsonInt_${nonce}:0`;
    const out = encodeJson({ a: planted, [planted]: 1, id: new JsonInt('9223372036854775807') });
    expect(JSON.parse(out.replace('9223372036854775807', '0'))).toEqual({ a: planted, [planted]: 1, id: 0 });
    expect(out).toContain('"id":9223372036854775807}');
  });

  it('throws rather than write a wrong literal when placement keeps failing', () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    const planted = `@@snodo_JsonInt_${(0.5).toString(36).slice(2, 12)}:0`;
    expect(() => encodeJson([planted, new JsonInt('12')])).toThrow(/could not place JsonInt literals/);
  });

  it('throws when a nested JSON.stringify swallows a placeholder', () => {
    const sneaky = { toJSON: () => JSON.stringify(new JsonInt('5')) };
    expect(() => encodeJson({ sneaky })).toThrow(/could not place JsonInt literals/);
  });

  it('supports encodeJson nested in a toJSON', () => {
    const inner = { toJSON: () => encodeJson({ id: new JsonInt('9223372036854775806') }) };
    expect(encodeJson({ inner, id: new JsonInt('9223372036854775807') })).toBe(
      '{"inner":"{\\"id\\":9223372036854775806}","id":9223372036854775807}',
    );
  });

  it('leaves no hook behind when JSON.stringify throws', () => {
    expect(() => encodeJson({ id: new JsonInt('1'), bad: 1n })).toThrow(TypeError);
    const cyclic: Record<string, unknown> = { id: new JsonInt('1') };
    cyclic.self = cyclic;
    expect(() => encodeJson(cyclic)).toThrow(TypeError);
  });
});

describe('encodeJson: common path', () => {
  it('is JSON.stringify when there is no JsonInt', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(encodeJson(v)).toBe(JSON.stringify(v));
      }),
      { numRuns: 300 },
    );
    const odd = { a: undefined, f: () => 1, d: new Date(0), n: Number.NaN, arr: [undefined, -0] };
    expect(encodeJson(odd)).toBe(JSON.stringify(odd));
  });

  it('refuses a top-level value JSON cannot hold', () => {
    expect(() => encodeJson(undefined)).toThrow(TypeError);
    expect(() => encodeJson(() => 1)).toThrow(TypeError);
    expect(() => encodeJson(Symbol('x'))).toThrow(TypeError);
  });

  it('never writes a raw newline or carriage return', () => {
    const out = encodeJson({ 'k\ney': 'a\nb\rc\u2028d', n: [new JsonInt('9223372036854775807')] });
    expect(out).not.toMatch(/[\n\r]/);
    expect(encodeJson({ s: 'a\nb' }, { ascii: true })).not.toMatch(/[\n\r]/);
  });
});

describe('encodeJson: ascii', () => {
  const sample = {
    'cl\u00e9': 'caf\u00e9 \u4e16\u754c \u{1f600} \u0000\u0001\u001f\n\t\u007f \u2028\u2029 \ufeff \uffff',
    list: ['\u00e9', '\u4e16\u754c', '\u{1f600}'],
    id: new JsonInt('-9223372036854775808'),
  };

  it('escapes every non-ASCII code unit and round-trips', () => {
    const out = encodeJson(sample, { ascii: true });
    expect(out).toMatch(ASCII_ONLY);
    const back = decodeJson(out);
    expect(back.ok && back.value).toEqual(sample);
    expect(out).toContain('"cl\\u00e9"');
    expect(out).toContain('"\\u4e16\\u754c"');
    expect(out).toContain('"\\ud83d\\ude00"'); // a surrogate pair is two escapes
    expect(out).toContain('\u007f'); // DEL is ASCII: left raw
    expect(out).not.toContain('\\u007f');
    expect(out).toContain('"id":-9223372036854775808');
  });

  it('writes exact, lowercase escapes', () => {
    expect(encodeJson('\u00e9\u{1f600}\u00ff\u0100\uabcd', { ascii: true })).toBe(
      '"\\u00e9\\ud83d\\ude00\\u00ff\\u0100\\uabcd"',
    );
    expect(encodeJson('\ud800 lone', { ascii: true })).toBe('"\\ud800 lone"');
    expect(encodeJson('plain', { ascii: true })).toBe('"plain"');
  });

  it('round-trips arbitrary strings (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }), (a, b) => {
        const out = encodeJson({ [b]: a, b }, { ascii: true });
        expect(out).toMatch(ASCII_ONLY);
        expect(JSON.parse(out)).toEqual({ [b]: a, b });
      }),
      { numRuns: 300 },
    );
  });
});
