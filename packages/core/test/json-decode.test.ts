import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_INTEGER_DIGITS, decodeJson } from '../src/json/decode.js';
import { JsonInt } from '../src/json/int.js';

const digits = (n: number, first = '9'): string => first + '1'.repeat(n - 1);
const bytes = (...parts: (string | number[])[]): Uint8Array => {
  const out: number[] = [];
  for (const p of parts) out.push(...(typeof p === 'string' ? new TextEncoder().encode(p) : p));
  return Uint8Array.from(out);
};

function value(input: string | Uint8Array, options?: { maxIntegerDigits?: number }): any {
  const r = decodeJson(input, options);
  if (!r.ok) throw new Error(`expected ok, got ${r.reason}: ${r.message}`);
  return r.value;
}

function failure(input: string | Uint8Array, options?: { maxIntegerDigits?: number }) {
  const r = decodeJson(input, options);
  if (r.ok) throw new Error(`expected a failure, got ${JSON.stringify(r.value)}`);
  return r;
}

describe('decodeJson: integer digit limit', () => {
  it('defaults to 64 digits', () => {
    expect(DEFAULT_MAX_INTEGER_DIGITS).toBe(64);
  });

  it('accepts 64 digits and refuses 65, positive and negative', () => {
    expect(value(`{"a":${digits(64)}}`).a).toBe(Number(digits(64)));
    expect(value(`{"a":-${digits(64)}}`).a).toBe(-Number(digits(64)));
    expect(value(`[${digits(64)}]`)).toEqual([Number(digits(64))]);
    expect(value(digits(64))).toBe(Number(digits(64)));

    const f = failure(`{"a":${digits(65)}}`);
    expect(f.reason).toBe('integer-too-long');
    expect(f.message).toContain('65 digits');
    expect(f.message).toContain('64');
    expect(failure(`{"a":-${digits(65)}}`).reason).toBe('integer-too-long');
    expect(failure(digits(65)).reason).toBe('integer-too-long');
    expect(failure(`[1, 2, {"deep": [[${digits(65)}]]}]`).reason).toBe('integer-too-long');
  });

  it('counts the integer part only: fraction and exponent digits are free', () => {
    expect(value(`{"a":1.${'1'.repeat(200)}}`).a).toBeCloseTo(1.111111, 5);
    expect(value(`{"a":${digits(64)}.5e-3}`).a).toBeGreaterThan(1e60);
    expect(value(`{"a":0.${'0'.repeat(100)}1}`).a).toBe(1e-101);
    expect(failure(`{"a":${digits(65)}.5}`).reason).toBe('integer-too-long');
    expect(failure(`{"a":${digits(65)}e-70}`).reason).toBe('integer-too-long');
  });

  it('counts the integer part of a token with a negative exponent, whose value is small', () => {
    expect(value(`{"a":1${'0'.repeat(63)}e-63}`).a).toBe(1);
    expect(value(`{"a":${digits(64)}.5E-70}`).a).toBeLessThan(1);
    expect(failure(`{"a":1${'0'.repeat(64)}e-64}`).reason).toBe('integer-too-long');
    expect(failure(`{"a":-${digits(65)}.5E-3}`).reason).toBe('integer-too-long');
    expect(value(`[${Array(1000).fill('1.5e-7').join(',')}]`)).toHaveLength(1000);
    // Past the candidate budget (many hyphens), the exact scan decides: same answers.
    const hyphens = `"${'-'.repeat(100_000)}","x-y",-1,-2`;
    expect(failure(`[${hyphens},${digits(65)}e-70]`).reason).toBe('integer-too-long');
    expect(value(`[${hyphens},${digits(64)}e-70,"${digits(65)}e-70"]`)).toHaveLength(6);
  });

  it('finds a long negative-exponent token after any number of hyphens, sparse or dense', () => {
    // Dense hyphens: 64 are looked at one by one, then the regex pass takes over from the 65th.
    // Sparse ones (one in 100 characters) are all looked at one by one.
    const dense = [63, 64, 65, 1000].map((n) => 'a-'.repeat(n));
    const sparse = `${'a'.repeat(99)}-`.repeat(1000);
    for (const text of [...dense, sparse]) {
      const prose = `"${text}"`;
      expect(failure(`[${prose},${digits(65)}e-70]`).reason).toBe('integer-too-long');
      expect(failure(`[${prose},-${digits(65)}.25E-70]`).reason).toBe('integer-too-long');
      expect(value(`[${prose},${digits(64)}e-70]`)).toHaveLength(2);
    }
  });

  it('does not count digits inside strings or keys', () => {
    const long = '1'.repeat(100);
    expect(value(`{"a":"${long}"}`).a).toBe(long);
    expect(value(`{"${long}":1}`)[long]).toBe(1);
    // A string that looks like a number token after a colon, plus a large float to force the exact scan.
    expect(value(`{"a":"x: ${long}","b":1e300}`).a).toBe(`x: ${long}`);
    expect(value(`{"a":"\\"${long}\\\\","b":1e300}`).a).toBe(`"${long}\\`);
  });

  it('applies a smaller limit exactly, including to safe integers', () => {
    expect(value('[1234567890]', { maxIntegerDigits: 10 })).toEqual([1234567890]);
    expect(value('[-1234567890]', { maxIntegerDigits: 10 })).toEqual([-1234567890]);
    expect(failure('[12345678901]', { maxIntegerDigits: 10 }).reason).toBe('integer-too-long');
    expect(failure('[-12345678901]', { maxIntegerDigits: 10 }).reason).toBe('integer-too-long');
    expect(value('[9.99]', { maxIntegerDigits: 1 })).toEqual([9.99]);
    expect(failure('[10]', { maxIntegerDigits: 1 }).reason).toBe('integer-too-long');
    expect(value(`[${digits(100)}]`, { maxIntegerDigits: 100 })).toHaveLength(1);
  });

  it('refuses a limit that is not a positive integer', () => {
    for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => decodeJson('1', { maxIntegerDigits: bad })).toThrow(
        /maxIntegerDigits must be a positive integer/,
      );
    }
  });

  it('survives nesting deeper than the call stack', () => {
    const depth = 100_000;
    const deep = '['.repeat(depth) + digits(65) + ']'.repeat(depth);
    expect(failure(deep).reason).toBe('integer-too-long');
    const fine = '['.repeat(depth) + '1' + ']'.repeat(depth);
    expect(decodeJson(fine).ok).toBe(true);
  });
});

describe('decodeJson: text and bytes', () => {
  it('ignores one leading BOM, as bytes or as a string', () => {
    expect(value(bytes([0xef, 0xbb, 0xbf], '{"a":1}'))).toEqual({ a: 1 });
    expect(value('\ufeff{"a":1}')).toEqual({ a: 1 });
    expect(failure(bytes([0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf], '{"a":1}')).reason).toBe('syntax');
    expect(failure('\ufeff\ufeff{"a":1}').reason).toBe('syntax');
    // Only a leading BOM: one inside a string is content.
    expect(value(bytes('{"a":"', [0xef, 0xbb, 0xbf], '"}')).a).toBe('\ufeff');
  });

  it('decodes UTF-8 and refuses invalid UTF-8 as a syntax error', () => {
    expect(value(bytes('{"a":"caf\u00e9 \u4e16\u754c \u{1f600}"}')).a).toBe(
      'caf\u00e9 \u4e16\u754c \u{1f600}',
    );
    for (const bad of [[0xff], [0xc3], [0xe4, 0xb8], [0xc0, 0xaf], [0xed, 0xa0, 0x80]]) {
      const f = failure(bytes('{"a":"', bad, '"}'));
      expect(f.reason).toBe('syntax');
      expect(f.message).toMatch(/UTF-8/);
    }
  });

  it('reports malformed JSON as a syntax error', () => {
    for (const bad of ['', '{', '{"a":}', '[1,]', "{'a':1}", 'NaN', '01', '{"a":1}x']) {
      const f = failure(bad);
      expect(f.reason).toBe('syntax');
      expect(f.message).toMatch(/^Message is not valid JSON/);
    }
  });
});

describe('decodeJson: identity paths keep big integers exactly', () => {
  const unsafe = [
    '9007199254740992',
    '9007199254740993',
    '9223372036854775807',
    '-9223372036854775808',
    digits(64),
  ];

  it('returns JsonInt at id, params._meta.progressToken and params.requestId', () => {
    for (const lit of unsafe) {
      const v = value(
        `{"id":${lit},"params":{"requestId":${lit},"_meta":{"progressToken":${lit}},"other":${lit}},"result":{"id":${lit}}}`,
      );
      for (const got of [v.id, v.params.requestId, v.params._meta.progressToken]) {
        expect(JsonInt.is(got)).toBe(true);
        expect(got.literal).toBe(lit);
      }
      // Everywhere else: what JSON.parse gives.
      expect(v.params.other).toBe(Number(lit));
      expect(v.result.id).toBe(Number(lit));
    }
  });

  it('finds each identity path on its own', () => {
    const lit = '9007199254740993';
    expect(value(`{"id":${lit}}`).id).toEqual(new JsonInt(lit));
    expect(value(`{"params":{"requestId":${lit}}}`).params.requestId).toEqual(new JsonInt(lit));
    expect(value(`{"params":{"_meta":{"progressToken":${lit}}}}`).params._meta.progressToken).toEqual(
      new JsonInt(lit),
    );
    expect(value(`[{"id":1},{"params":{"requestId":${lit}}}]`)[1].params.requestId).toEqual(new JsonInt(lit));
    expect(
      value(`[{"id":1},{"params":{"_meta":{"progressToken":${lit}}}}]`)[1].params._meta.progressToken,
    ).toEqual(new JsonInt(lit));
  });

  it('does the same for each element of a batch', () => {
    const v = value(
      '[{"id":9223372036854775807},{"id":1},{"params":{"requestId":-9223372036854775808}},' +
        '[{"id":9223372036854775806}],{"params":{"_meta":{"progressToken":9007199254740993}}}]',
    );
    expect(v[0].id).toEqual(new JsonInt('9223372036854775807'));
    expect(v[1].id).toBe(1);
    expect(v[2].params.requestId).toEqual(new JsonInt('-9223372036854775808'));
    expect(v[3][0].id).toBe(Number('9223372036854775806')); // not a message: an array inside the batch
    expect(v[4].params._meta.progressToken).toEqual(new JsonInt('9007199254740993'));
  });

  it('leaves safe integers, floats and exponents as numbers', () => {
    const v = value(
      '[{"id":9007199254740991},{"id":-9007199254740991},{"id":9223372036854775807.0},{"id":1e19},{"id":9223372036854775807e0}]',
    );
    expect(v.map((m: { id: unknown }) => typeof m.id)).toEqual([
      'number',
      'number',
      'number',
      'number',
      'number',
    ]);
    expect(v[0].id).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('follows JSON.parse on duplicate keys: the last value wins', () => {
    expect(value('{"id":9223372036854775807,"id":9223372036854775806}').id).toEqual(
      new JsonInt('9223372036854775806'),
    );
    expect(value('{"id":9223372036854775806,"id":9223372036854775807.0}').id).toBe(
      Number('9223372036854775807'),
    );
    expect(value('{"id":9223372036854775807,"id":"x"}').id).toBe('x');
    const v = value(
      '{"params":{"requestId":9223372036854775807},"params":{"requestId":9223372036854775806}}',
    );
    expect(v.params.requestId).toEqual(new JsonInt('9223372036854775806'));
    const w = value(
      '{"params":{"requestId":9223372036854775807},"params":{"requestId":9223372036854775807.5}}',
    );
    expect(typeof w.params.requestId).toBe('number');
  });

  it('is not fooled by strings, escapes or whitespace', () => {
    const v = value(
      ' {\n "x" : "\\"id\\": 9223372036854775806, \\\\" ,\t"\\u0069d" :\r 9223372036854775807 ,' +
        ' "params": { "_meta" : { "progressToken" : -9223372036854775808 } } } ',
    );
    expect(v.x).toBe('"id": 9223372036854775806, \\');
    expect(v.id).toEqual(new JsonInt('9223372036854775807'));
    expect(v.params._meta.progressToken).toEqual(new JsonInt('-9223372036854775808'));
  });

  it('looks at own members only, and tolerates wrong shapes', () => {
    expect(value('{"params":[9223372036854775807]}').params[0]).toBe(Number('9223372036854775807'));
    expect(value('{"params":{"_meta":[9223372036854775807]}}').params._meta[0]).toBe(
      Number('9223372036854775807'),
    );
    expect(value('{"a":{"id":9223372036854775807}}').a.id).toBe(Number('9223372036854775807'));
    expect(value('[[9223372036854775807]]')).toEqual([[Number('9223372036854775807')]]);
    expect(value('9223372036854775807')).toBe(Number('9223372036854775807'));
  });
});

describe('decodeJson: same value as JSON.parse', () => {
  function record(i: number) {
    return {
      id: i,
      name: `item-${i}`,
      label: i % 7 === 0 ? `caf\u00e9 \u4e16\u754c \u{1f600} ${i}` : `plain ${i}`,
      hash: `${i}`.repeat(20),
      score: i / 7,
      flags: [true, false, null],
      nested: { text: 'a\nb "c" \\ d\u0001', n: -i },
    };
  }

  it('for a 2 MB message on the common path', () => {
    const records = [];
    let text = '';
    for (let n = 1000; text.length < 2_000_000; n *= 2) {
      while (records.length < n) records.push(record(records.length));
      text = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { arguments: { records } },
      });
    }
    expect(new TextEncoder().encode(text).length).toBeGreaterThanOrEqual(2_000_000);
    expect(value(text)).toEqual(JSON.parse(text));
    expect(value(new TextEncoder().encode(text))).toEqual(JSON.parse(text));
  });

  it('for a 2 MB message with big integers outside the identity paths (exact scan)', () => {
    const parts = [];
    let size = 0;
    for (let i = 0; size < 2_000_000; i++) {
      const part = `{"big":${10n ** 18n + BigInt(i)},"neg":-${digits(30)},"f":${i / 3},"s":"\\"id\\":${digits(20)}"}`;
      parts.push(part);
      size += part.length;
    }
    const text = `{"jsonrpc":"2.0","id":9223372036854775807,"result":{"rows":[${parts.join(',')}]}}`;
    const v = value(text);
    expect(v.id).toEqual(new JsonInt('9223372036854775807'));
    expect({ ...v, id: 0 }).toEqual({ ...JSON.parse(text), id: 0 });
  });

  it('for arbitrary JSON (property)', () => {
    fc.assert(
      fc.property(fc.json(), (text) => {
        expect(value(text)).toEqual(JSON.parse(text));
      }),
      { numRuns: 300 },
    );
  });
});

describe('JsonInt', () => {
  it('keeps its literal and converts exactly', () => {
    const n = new JsonInt('-9223372036854775808');
    expect(n.literal).toBe('-9223372036854775808');
    expect(String(n)).toBe('-9223372036854775808');
    expect(n.toBigInt()).toBe(-(2n ** 63n));
  });

  it('accepts only JSON integer literals', () => {
    for (const bad of ['', '-', '01', '-01', '1.0', '1e5', ' 1', '1 ', '+1', '--1', '1}', '0x10', '١']) {
      expect(() => new JsonInt(bad)).toThrow(TypeError);
    }
    for (const good of ['0', '-0', '7', digits(200)]) expect(new JsonInt(good).literal).toBe(good);
  });

  it('is recognised across copies by its Symbol.for brand', () => {
    const foreign = Object.create({ [Symbol.for('snodo.JsonInt')]: true, literal: '1' });
    expect(JsonInt.is(foreign)).toBe(true);
    expect(foreign instanceof JsonInt).toBe(true);
    expect(new JsonInt('1') instanceof JsonInt).toBe(true);
    for (const other of [null, undefined, 1, '1', 1n, {}, { literal: '1' }, [new JsonInt('1')]]) {
      expect(JsonInt.is(other)).toBe(false);
      expect(other instanceof JsonInt).toBe(false);
    }
  });
});
