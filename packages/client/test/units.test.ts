import { describe, expect, it } from 'vitest';
import { ResultCache } from '../src/cache.js';
import { CLIENT_ERRORS, TimeoutError, TransportError, transportError } from '../src/errors.js';
import { encodeHeaderValue, paramHeaderValues, toolHeaders } from '../src/headers.js';
import { MemberScanner } from '../src/transports/id-scanner.js';
import { LineSplitter } from '../src/transports/lines.js';
import { SseParser } from '../src/transports/sse.js';

describe('x-mcp-header validation (SEP-2243)', () => {
  const schema = (props: Record<string, unknown>) => ({ type: 'object', properties: props });

  it('accepts string, integer, boolean and nullable annotations, with their paths', () => {
    const result = toolHeaders(
      schema({
        region: { type: 'string', 'x-mcp-header': 'Region' },
        count: { type: 'integer', 'x-mcp-header': 'Count' },
        flag: { type: ['boolean', 'null'], 'x-mcp-header': 'Flag' },
        nested: { type: 'object', properties: { zone: { type: 'string', 'x-mcp-header': 'Zone' } } },
        plain: { type: 'number' },
      }),
    );
    expect(result).toEqual({
      ok: true,
      params: [
        { name: 'Region', path: ['region'] },
        { name: 'Count', path: ['count'] },
        { name: 'Flag', path: ['flag'] },
        { name: 'Zone', path: ['nested', 'zone'] },
      ],
    });
  });

  it.each([
    ['empty', schema({ a: { type: 'string', 'x-mcp-header': '' } })],
    ['a space', schema({ a: { type: 'string', 'x-mcp-header': 'My Region' } })],
    ['a colon', schema({ a: { type: 'string', 'x-mcp-header': 'Region:Primary' } })],
    ['non-ASCII', schema({ a: { type: 'string', 'x-mcp-header': 'Région' } })],
    ['a control character', schema({ a: { type: 'string', 'x-mcp-header': 'Region\t1' } })],
    ['a number', schema({ a: { type: 'number', 'x-mcp-header': 'A' } })],
    ['an object', schema({ a: { type: 'object', 'x-mcp-header': 'A' } })],
    ['an array', schema({ a: { type: 'array', 'x-mcp-header': 'A' } })],
    ['null', schema({ a: { type: 'null', 'x-mcp-header': 'A' } })],
    ['no type', schema({ a: { 'x-mcp-header': 'A' } })],
    [
      'a duplicate of another case',
      schema({
        a: { type: 'string', 'x-mcp-header': 'MyField' },
        b: { type: 'string', 'x-mcp-header': 'myfield' },
      }),
    ],
    ['inside items', schema({ a: { type: 'array', items: { type: 'string', 'x-mcp-header': 'A' } } })],
    ['inside anyOf', schema({ a: { anyOf: [{ type: 'string', 'x-mcp-header': 'A' }] } })],
    ['inside $defs', { type: 'object', $defs: { a: { type: 'string', 'x-mcp-header': 'A' } } }],
    ['on the root', { type: 'object', 'x-mcp-header': 'A' }],
  ])('refuses an annotation that is %s', (_, inputSchema) => {
    expect(toolHeaders(inputSchema).ok).toBe(false);
  });

  it('ignores x-mcp-header keys inside data keywords', () => {
    expect(toolHeaders(schema({ a: { type: 'object', default: { 'x-mcp-header': '' } } }))).toEqual({
      ok: true,
      params: [],
    });
  });
});

describe('header values', () => {
  it.each([
    ['us-west1', 'us-west1'],
    ['us west 1', 'us west 1'],
    ['', ''],
    ['Hello, 世界', '=?base64?SGVsbG8sIOS4lueVjA==?='],
    [' padded ', '=?base64?IHBhZGRlZCA=?='],
    ['line1\nline2', `=?base64?${Buffer.from('line1\nline2').toString('base64')}?=`],
    ['\tindented', `=?base64?${Buffer.from('\tindented').toString('base64')}?=`],
    ['=?base64?abc?=', `=?base64?${Buffer.from('=?base64?abc?=').toString('base64')}?=`],
  ])('encodes %j as %j', (text, expected) => {
    expect(encodeHeaderValue(text)).toBe(expected);
  });

  it('mirrors present, non-null annotated arguments only, booleans and integers as text', () => {
    const params = [
      { name: 'Region', path: ['region'] },
      { name: 'Priority', path: ['priority'] },
      { name: 'Verbose', path: ['verbose'] },
      { name: 'Debug', path: ['debug'] },
      { name: 'Missing', path: ['missing'] },
    ];
    expect(paramHeaderValues(params, { region: 'eu', priority: 42, verbose: null, debug: false })).toEqual({
      'Mcp-Param-Region': 'eu',
      'Mcp-Param-Priority': '42',
      'Mcp-Param-Debug': 'false',
    });
  });
});

describe('SSE parser', () => {
  it('joins data lines, ignores comments, handles CRLF/CR/LF and chunks split anywhere', () => {
    const text =
      ': keep-alive\r\nevent: message\r\nid: 7\r\ndata: {"a":\r\ndata: 1}\r\n\r\nretry: 500\rdata: two\r\rdata:\n\n';
    for (let split = 0; split < text.length; split++) {
      const parser = new SseParser(1_000);
      const encoder = new TextEncoder();
      const events = [
        ...parser.push(encoder.encode(text.slice(0, split))),
        ...parser.push(encoder.encode(text.slice(split))),
        ...parser.end(),
      ];
      expect(events).toEqual([
        { event: 'message', data: '{"a":\n1}', id: '7', retry: undefined },
        { event: 'message', data: 'two', id: '7', retry: 500 },
      ]);
    }
  });

  it('keeps the last event id of a priming event without data', () => {
    const parser = new SseParser(1_000);
    expect(parser.push(new TextEncoder().encode('id: prime-1\nretry: 250\ndata: \n\n'))).toEqual([]);
    expect(parser.lastEventId).toBe('prime-1');
    expect(parser.retry).toBe(250);
  });

  it('refuses an event larger than its bound', () => {
    const parser = new SseParser(10);
    expect(() => parser.push(new TextEncoder().encode(`data: ${'x'.repeat(20)}\n`))).toThrow(RangeError);
  });
});

describe('line splitter', () => {
  it('splits on newlines, drops a CR before them, and skips an oversized line whole, reporting what it was', () => {
    const lines: string[] = [];
    const oversized: unknown[] = [];
    const splitter = new LineSplitter(
      12,
      (line) => lines.push(line.toString()),
      (line) => oversized.push(line),
    );
    splitter.push(Buffer.from('ab\r\ncd'));
    splitter.push(Buffer.from('e\n{"id":7,"res'));
    splitter.push(Buffer.from('ult":"0123456789"}\nok\n'));
    splitter.push(Buffer.from('0123456789ab\r\n0123456789abc\n'));
    expect(lines).toEqual(['ab', 'cde', 'ok', '0123456789ab']);
    expect(oversized).toEqual([
      { bytes: 30, kind: 'response', id: 7 },
      { bytes: 13, kind: 'unknown', id: undefined },
    ]);
  });
});

describe('member scanner (attributing a line too long to hold)', () => {
  function scan(text: string, pieceSize = text.length) {
    const scanner = new MemberScanner();
    const bytes = Buffer.from(text);
    for (let i = 0; i < bytes.length; i += pieceSize) scanner.push(bytes.subarray(i, i + pieceSize));
    return scanner.result();
  }
  const big = JSON.stringify({ content: [{ type: 'text', text: 'x"}{]['.repeat(50), id: 99 }] });

  it('finds the top-level id before or after a large result, never one nested inside it, fed in any pieces', () => {
    for (const pieceSize of [1, 3, 1000]) {
      expect(scan(`{"jsonrpc":"2.0","id":5,"result":${big}}`, pieceSize)).toMatchObject({
        kind: 'response',
        id: 5,
      });
      expect(scan(`{ "result" : ${big} , "jsonrpc":"2.0", "id" : "a\\"b" }`, pieceSize)).toMatchObject({
        kind: 'response',
        id: 'a"b',
      });
      expect(scan(`{"error":{"code":-1,"message":"m","data":${big}},"id":-3}`, pieceSize)).toMatchObject({
        kind: 'response',
        id: -3,
      });
    }
  });

  it('keeps an integer id beyond the safe range exactly', () => {
    const { id } = scan(`{"jsonrpc":"2.0","id":123456789012345678901234567890,"result":{}}`);
    expect(String(id)).toBe('123456789012345678901234567890');
  });

  it('tells requests, notifications and lines that name nothing apart', () => {
    expect(
      scan(`{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":${big}}`),
    ).toMatchObject({ kind: 'request', id: 's1' });
    expect(scan(`{"jsonrpc":"2.0","method":"notifications/message","params":${big}}`)).toMatchObject({
      kind: 'notification',
      id: undefined,
    });
    expect(scan(`[${big}]`)).toMatchObject({ kind: 'unknown', id: undefined });
    expect(scan(`not json at all ${big}`)).toMatchObject({ kind: 'unknown', id: undefined });
    // An id longer than the scanner keeps names no request.
    expect(scan(`{"id":"${'i'.repeat(300)}","result":{}}`)).toMatchObject({
      kind: 'response',
      id: undefined,
    });
    expect(scan(`{"identity":1,"result":{}}`)).toMatchObject({ kind: 'response', id: undefined });
  });
});

describe('result cache', () => {
  it('keeps results for ttlMs, never those without a positive ttlMs', () => {
    let now = 1_000;
    const cache = new ResultCache(10, () => now);
    cache.set('tools/list', '', '', { tools: [], ttlMs: 100, cacheScope: 'public' });
    cache.set('prompts/list', '', '', { prompts: [], ttlMs: 0, cacheScope: 'public' });
    cache.set('resources/list', '', '', { resources: [], ttlMs: -5, cacheScope: 'public' });
    cache.set('resources/templates/list', '', '', { resourceTemplates: [] });
    expect(cache.size).toBe(1);
    expect(cache.get('tools/list', '', '')).toBeDefined();
    now = 1_100;
    expect(cache.get('tools/list', '', '')).toBeUndefined();
  });

  it('shares public entries and keys private ones by the authorization context', () => {
    const cache = new ResultCache(10, () => 0);
    cache.set('resources/read', 'a://x', 'token-1', { contents: [1], ttlMs: 60_000, cacheScope: 'private' });
    cache.set('resources/read', 'a://y', 'token-1', { contents: [2], ttlMs: 60_000, cacheScope: 'public' });
    expect(cache.get('resources/read', 'a://x', 'token-1')).toEqual(
      expect.objectContaining({ contents: [1] }),
    );
    expect(cache.get('resources/read', 'a://x', 'token-2')).toBeUndefined();
    expect(cache.get('resources/read', 'a://y', 'token-2')).toEqual(
      expect.objectContaining({ contents: [2] }),
    );
  });

  it('invalidates by method or by method and param, and evicts the oldest past maxEntries', () => {
    const cache = new ResultCache(2, () => 0);
    const r = { ttlMs: 1_000, cacheScope: 'public' as const };
    cache.set('resources/read', 'a', '', r);
    cache.set('resources/read', 'b', '', r);
    cache.invalidate('resources/read', 'a');
    expect(cache.get('resources/read', 'a', '')).toBeUndefined();
    expect(cache.get('resources/read', 'b', '')).toBeDefined();
    cache.set('tools/list', '', '', r);
    cache.set('tools/list', 'c2', '', r);
    expect(cache.get('resources/read', 'b', '')).toBeUndefined();
    cache.invalidate('tools/list');
    expect(cache.size).toBe(0);
  });
});

describe('errors', () => {
  it('declares every local code once, as SNODO_ERR_* with a message', () => {
    const rows = Object.entries(CLIENT_ERRORS);
    expect(rows.length).toBe(19);
    for (const [code, row] of rows) {
      expect(code).toMatch(/^SNODO_ERR_[A-Z_]+$/);
      expect(row.code).toBe(code);
      expect(row.message.length).toBeGreaterThan(0);
    }
  });

  it('brands transport and timeout errors with Symbol.for, so another copy of the package recognises them', () => {
    const error = transportError('SNODO_ERR_HTTP_STATUS', 'HTTP 500', { status: 500 });
    expect(TransportError.is(error)).toBe(true);
    expect(error.code).toBe('SNODO_ERR_HTTP_STATUS');
    expect(error.status).toBe(500);
    const foreign = Object.assign(new Error('x'), { [Symbol.for('snodo.client.TransportError')]: true });
    expect(TransportError.is(foreign)).toBe(true);
    expect(TimeoutError.is(error)).toBe(false);
    expect(TimeoutError.is(new TimeoutError('late', 5))).toBe(true);
  });
});

describe('OAuth challenges', () => {
  it('reads the parameters of a WWW-Authenticate challenge, quoted or not', async () => {
    const { challengeParams } = await import('../src/oauth.js');
    expect(
      challengeParams(
        'Bearer error="insufficient_scope", scope="files:read files:write", resource_metadata=https://x/y',
      ),
    ).toEqual({
      error: 'insufficient_scope',
      scope: 'files:read files:write',
      resource_metadata: 'https://x/y',
    });
    expect(challengeParams(undefined)).toEqual({});
  });
});
