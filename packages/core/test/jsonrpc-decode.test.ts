import { describe, expect, it } from 'vitest';
import { encodeJson } from '../src/json/encode.js';
import { JsonInt, type RequestId } from '../src/json/int.js';
import {
  classifyMessage,
  DEFAULT_MAX_ID_BYTES,
  type Decoded,
  type DecodedSingle,
  decodeMessage,
} from '../src/jsonrpc/decode.js';

const j = (v: unknown): string => JSON.stringify(v);
const request = (id: string, extra = ''): string =>
  `{"jsonrpc":"2.0","id":${id},"method":"tools/call"${extra}}`;
const withToken = (token: string, id = '7'): string =>
  request(id, `,"params":{"name":"t","_meta":{"progressToken":${token}}}`);

function single(d: Decoded): DecodedSingle {
  if (d.kind === 'batch') throw new Error('unexpected batch');
  return d;
}

function invalid(input: string | Uint8Array, limits?: Parameters<typeof decodeMessage>[1]) {
  const d = single(decodeMessage(input, limits));
  if (d.kind !== 'invalid') throw new Error(`expected invalid, got ${d.kind}`);
  return d;
}

function requestOf(input: string | Uint8Array, limits?: Parameters<typeof decodeMessage>[1]) {
  const d = single(decodeMessage(input, limits));
  if (d.kind !== 'request') throw new Error(`expected a request, got ${j(d)}`);
  return d;
}

/** A response to `id`, encoded the way a transport writes it. */
const respond = (id: RequestId): string => encodeJson({ jsonrpc: '2.0', id, result: {} });

describe('decodeMessage: parse errors', () => {
  it('answers unparseable JSON with -32700 and a null id', () => {
    for (const bad of ['', '{', '{"jsonrpc":"2.0","id":1,', 'nope']) {
      const d = invalid(bad);
      expect(d).toMatchObject({ id: null, error: { code: -32700 } });
      expect(d.error.message).toMatch(/^Parse error: Message is not valid JSON/);
    }
  });

  it('answers an integer literal over 64 digits with -32700, even in params', () => {
    const ok = requestOf(request('1', `,"params":{"n":${'9'.repeat(64)}}`));
    expect(ok.params?.n).toBe(Number('9'.repeat(64)));
    const d = invalid(request('1', `,"params":{"n":-${'9'.repeat(65)}}`));
    expect(d).toMatchObject({ id: null, error: { code: -32700 } });
    expect(d.error.message).toMatch(/65 digits; the limit is 64/);
    expect(requestOf(request('1', `,"params":{"s":"${'9'.repeat(100)}"}`)).params?.s).toHaveLength(100);
  });

  it('ignores a BOM and refuses invalid UTF-8', () => {
    const enc = new TextEncoder().encode(request('1'));
    expect(requestOf(Uint8Array.from([0xef, 0xbb, 0xbf, ...enc])).id).toBe(1);
    expect(requestOf(`\ufeff${request('1')}`).id).toBe(1);
    const broken = new TextEncoder().encode(request('"ab"'));
    broken[broken.indexOf(0x61)] = 0xff; // the 'a' of the id
    const d = invalid(broken);
    expect(d).toMatchObject({ id: null, error: { code: -32700 } });
    expect(d.error.message).toMatch(/UTF-8/);
  });
});

describe('decodeMessage: shape', () => {
  it('refuses a top level that is not an object or array', () => {
    for (const top of ['42', '"x"', 'null', 'true']) {
      const d = invalid(top);
      expect(d).toMatchObject({ id: null, error: { code: -32600 } });
      expect(d.error.message).toMatch(/must be a JSON object/);
    }
    expect(invalid('[]')).toMatchObject({
      id: null,
      error: { code: -32600, message: 'Invalid Request: empty batch' },
    });
  });

  it('classifies each element of a batch by the same rules', () => {
    const d = decodeMessage(
      `[${request('1')},{"jsonrpc":"2.0","method":"notifications/initialized"},42,` +
        `{"jsonrpc":"2.0","id":"r","result":{"ok":true}},{"jsonrpc":"1.0","id":2,"method":"m"},[],` +
        `{"jsonrpc":"2.0","id":null,"method":"m"},${request('9223372036854775807')}]`,
    );
    if (d.kind !== 'batch') throw new Error('expected a batch');
    expect(d.items.map((i) => i.kind)).toEqual([
      'request',
      'notification',
      'invalid',
      'response',
      'invalid',
      'invalid',
      'invalid',
      'request',
    ]);
    expect(d.items[2]).toMatchObject({ id: null, error: { code: -32600 } });
    expect(d.items[4]).toMatchObject({ id: 2, error: { code: -32600 } });
    expect(d.items[5]).toMatchObject({ id: null, error: { code: -32600 } });
    expect(d.items[6]).toMatchObject({ id: null, error: { code: -32600 } });
    expect(d.items[7]).toMatchObject({ id: new JsonInt('9223372036854775807') });
    expect(decodeMessage('[1]')).toMatchObject({ kind: 'batch', items: [{ kind: 'invalid', id: null }] });
  });

  it('requires "jsonrpc" to be exactly "2.0"', () => {
    for (const version of ['', ',"jsonrpc":"1.0"', ',"jsonrpc":2.0', ',"jsonrpc":"2.0 "']) {
      const d = invalid(`{"id":5,"method":"m"${version}}`);
      expect(d).toMatchObject({ id: 5, error: { code: -32600 } });
      expect(d.error.message).toMatch(/"jsonrpc" must be exactly "2.0"/);
    }
  });

  it('returns requests and notifications with their params and message', () => {
    const r = requestOf(request('"a"', ',"params":{"name":"t","arguments":{}}'));
    expect(r).toEqual({
      kind: 'request',
      id: 'a',
      method: 'tools/call',
      params: { name: 't', arguments: {} },
      message: { jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 't', arguments: {} } },
    });
    expect(decodeMessage('{"jsonrpc":"2.0","method":"notifications/initialized"}')).toEqual({
      kind: 'notification',
      method: 'notifications/initialized',
      params: undefined,
      message: { jsonrpc: '2.0', method: 'notifications/initialized' },
    });
  });

  it('requires a string method and object params', () => {
    for (const method of ['1', 'null', '{}', '["m"]']) {
      const d = invalid(`{"jsonrpc":"2.0","id":3,"method":${method}}`);
      expect(d).toMatchObject({ id: 3, error: { code: -32600 } });
      expect(d.error.message).toMatch(/"method" must be a string/);
    }
    for (const params of ['[1,2]', 'null', '"x"', '1']) {
      const d = invalid(request('3', `,"params":${params}`));
      expect(d).toMatchObject({ id: 3, error: { code: -32600 } });
      expect(d.error.message).toMatch(/"params" must be a JSON object/);
      expect(invalid(`{"jsonrpc":"2.0","method":"n","params":${params}}`)).toMatchObject({ id: null });
    }
    expect(invalid(request('3', ',"result":{}'))).toMatchObject({ id: 3, error: { code: -32600 } });
  });

  it('classifies responses: exactly one of result and error', () => {
    expect(decodeMessage('{"jsonrpc":"2.0","id":1,"result":null}')).toEqual({
      kind: 'response',
      id: 1,
      result: null,
      message: { jsonrpc: '2.0', id: 1, result: null },
    });
    expect(
      decodeMessage('{"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"nope","data":[1]}}'),
    ).toMatchObject({ kind: 'response', id: 'x', error: { code: -32601, message: 'nope', data: [1] } });
    const both = invalid('{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}');
    expect(both).toMatchObject({ id: 1, error: { code: -32600 } });
    expect(both.error.message).toMatch(/both "result" and "error"/);
    expect(invalid('{"jsonrpc":"2.0","id":1}')).toMatchObject({ id: 1, error: { code: -32600 } });
    expect(invalid('{"jsonrpc":"2.0","result":{}}')).toMatchObject({ id: null, error: { code: -32600 } });
    for (const error of ['{"code":1.5,"message":"m"}', '{"code":1}', '{"message":"m"}', '"boom"', 'null']) {
      const d = invalid(`{"jsonrpc":"2.0","id":1,"error":${error}}`);
      expect(d).toMatchObject({ id: 1, error: { code: -32600 } });
      expect(d.error.message).toMatch(/"error" must be an object/);
    }
  });
});

describe('decodeMessage: id bounds', () => {
  it('defaults to 256 bytes', () => {
    expect(DEFAULT_MAX_ID_BYTES).toBe(256);
  });

  it('counts UTF-8 bytes of a string id: 256 pass, 257 fail with a null id', () => {
    const cases: [string, boolean][] = [
      ['a'.repeat(256), true],
      ['a'.repeat(257), false],
      ['\u00e9'.repeat(128), true], // 2 bytes each
      ['\u00e9'.repeat(128) + 'a', false],
      ['\u4e16'.repeat(85) + 'a', true], // 3 bytes each: 255 + 1
      ['\u4e16'.repeat(86), false],
      ['\u{1f600}'.repeat(64), true], // 4 bytes per surrogate pair
      ['\u{1f600}'.repeat(64) + 'a', false],
      ['', true],
    ];
    for (const [id, ok] of cases) {
      expect(new TextEncoder().encode(id).length <= 256).toBe(ok);
      const d = single(decodeMessage(request(j(id))));
      if (ok) {
        expect(d).toMatchObject({ kind: 'request', id });
      } else {
        expect(d).toMatchObject({ kind: 'invalid', id: null, error: { code: -32600 } });
        if (d.kind === 'invalid')
          expect(d.error.message).toMatch(/"id" must be a string of at most 256 UTF-8 bytes/);
      }
    }
  });

  it('echoes int64 boundary ids exactly through encodeJson', () => {
    for (const lit of [
      '9223372036854775807',
      '-9223372036854775808',
      '9007199254740993',
      '-9007199254740992',
    ]) {
      const r = requestOf(request(lit));
      expect(JsonInt.is(r.id)).toBe(true);
      expect(respond(r.id)).toBe(`{"jsonrpc":"2.0","id":${lit},"result":{}}`);
      expect(r.message.id).toBe(r.id);
    }
    for (const lit of ['9007199254740991', '-9007199254740991', '0', '-1']) {
      const r = requestOf(request(lit));
      expect(r.id).toBe(Number(lit));
      expect(respond(r.id)).toBe(`{"jsonrpc":"2.0","id":${lit},"result":{}}`);
    }
  });

  it('refuses ids out of int64 or of the wrong type, with a null id', () => {
    for (const id of [
      '9223372036854775808',
      '-9223372036854775809',
      '1' + '0'.repeat(30),
      '1.5',
      '-0.5',
      '1e300',
    ]) {
      const d = invalid(request(id));
      expect(d).toMatchObject({ id: null, error: { code: -32600 } });
      expect(d.error.message).toMatch(/"id" must be .* an integer in the int64 range/);
    }
    expect(invalid(request('9223372036854775808')).error.message).toMatch(/got 9223372036854775808$/);
    for (const id of ['null', 'true', '{}', '[]', '[1]']) {
      expect(invalid(request(id))).toMatchObject({ id: null, error: { code: -32600 } });
    }
    expect(invalid('{"jsonrpc":"2.0","id":null,"result":{}}')).toMatchObject({
      id: null,
      error: { code: -32600 },
    });
  });

  it('applies the same bounds to response ids', () => {
    const r = single(decodeMessage('{"jsonrpc":"2.0","id":-9223372036854775808,"result":{}}'));
    expect(r).toMatchObject({ kind: 'response', id: new JsonInt('-9223372036854775808') });
    expect(invalid('{"jsonrpc":"2.0","id":-9223372036854775809,"result":{}}')).toMatchObject({ id: null });
  });
});

describe('decodeMessage: progress token bounds', () => {
  it('keeps int64 boundary tokens exactly', () => {
    for (const lit of ['9223372036854775807', '-9223372036854775808', '9007199254740993']) {
      const r = requestOf(withToken(lit));
      const token = (r.params?._meta as Record<string, unknown> | undefined)?.progressToken;
      expect(token).toEqual(new JsonInt(lit));
      expect(encodeJson({ progressToken: token })).toBe(`{"progressToken":${lit}}`);
    }
    expect(requestOf(withToken(j('\u00e9'.repeat(128)))).kind).toBe('request');
    expect(requestOf(withToken('12')).params?._meta).toEqual({ progressToken: 12 });
  });

  it('answers a bad token with -32602 and the request id', () => {
    const bad = [
      '9223372036854775808',
      '-9223372036854775809',
      '1.5',
      'null',
      'true',
      '{}',
      j('a'.repeat(257)),
    ];
    bad.push(j('\u00e9'.repeat(128) + 'a'));
    for (const token of bad) {
      const d = invalid(withToken(token, '"req-1"'));
      expect(d).toMatchObject({ id: 'req-1', error: { code: -32602 } });
      expect(d.error.message).toMatch(/^Invalid params: "params._meta.progressToken" must be/);
    }
    const big = invalid(withToken('9223372036854775808', '9223372036854775807'));
    expect(big).toMatchObject({ id: new JsonInt('9223372036854775807'), error: { code: -32602 } });
    expect(encodeJson({ jsonrpc: '2.0', id: big.id, error: big.error })).toMatch(
      /^\{"jsonrpc":"2.0","id":9223372036854775807,/,
    );
  });

  it('answers a bad token on a notification with a null id', () => {
    const d = invalid(
      '{"jsonrpc":"2.0","method":"n","params":{"_meta":{"progressToken":9223372036854775808}}}',
    );
    expect(d).toMatchObject({ id: null, error: { code: -32602 } });
  });

  it('requires _meta to be an object', () => {
    for (const meta of ['[]', 'null', '"x"', '1']) {
      const d = invalid(request('4', `,"params":{"_meta":${meta}}`));
      expect(d).toMatchObject({ id: 4, error: { code: -32602 } });
      expect(d.error.message).toMatch(/"params._meta" must be a JSON object/);
    }
    expect(requestOf(request('4', ',"params":{"_meta":{}}')).params).toEqual({ _meta: {} });
  });
});

describe('decodeMessage: limits', () => {
  it('honours maxIdBytes and maxIntegerDigits', () => {
    expect(requestOf(request('"abcd"'), { maxIdBytes: 4 }).id).toBe('abcd');
    expect(invalid(request('"abcde"'), { maxIdBytes: 4 })).toMatchObject({
      id: null,
      error: { code: -32600 },
    });
    expect(invalid(withToken('"abcde"'), { maxIdBytes: 4 })).toMatchObject({
      id: 7,
      error: { code: -32602 },
    });
    expect(requestOf(request('123'), { maxIntegerDigits: 3 }).id).toBe(123);
    expect(invalid(request('1234'), { maxIntegerDigits: 3 })).toMatchObject({
      id: null,
      error: { code: -32700 },
    });
  });

  it('refuses bad limits', () => {
    expect(() => decodeMessage('{}', { maxIdBytes: 0 })).toThrow(/maxIdBytes must be a positive integer/);
    expect(() => decodeMessage('{}', { maxIdBytes: 1.5 })).toThrow(RangeError);
    expect(() => decodeMessage('{}', { maxIntegerDigits: 0 })).toThrow(/maxIntegerDigits/);
  });
});

describe('classifyMessage', () => {
  it('classifies an already-parsed message with the same rules', () => {
    expect(classifyMessage({ jsonrpc: '2.0', id: 1, method: 'm' })).toMatchObject({ kind: 'request', id: 1 });
    expect(classifyMessage([{ jsonrpc: '2.0', id: 1, method: 'm' }])).toMatchObject({
      kind: 'invalid',
      id: null,
    });
    expect(classifyMessage({ jsonrpc: '2.0', id: 'ab', method: 'm' }, { maxIdBytes: 1 })).toMatchObject({
      kind: 'invalid',
      id: null,
    });
    expect(
      classifyMessage({ jsonrpc: '2.0', id: new JsonInt('9223372036854775808'), method: 'm' }),
    ).toMatchObject({
      kind: 'invalid',
      id: null,
    });
  });
});
