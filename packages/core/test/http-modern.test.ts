import { describe, expect, it } from 'vitest';
import { createServer, JsonInt, paramHeadersOf, tool } from '../src/index.js';
import { httpServer, modernHeaders, modernMessage, post, postModern } from './http-helpers.js';

const runtime = httpServer();
const b64 = (text: string) => `=?base64?${btoa(String.fromCharCode(...new TextEncoder().encode(text)))}?=`;

describe('2026-07-28 over HTTP: _meta and MCP-Protocol-Version', () => {
  it('answers a complete request with 200 and application/json', async () => {
    const answer = await postModern(runtime, modernMessage('tools/list'));
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(answer.body.result.resultType).toBe('complete');
  });

  it.each([
    ['no _meta', { jsonrpc: '2.0', id: 1, method: 'server/discover', params: {} }],
    ['no params', { jsonrpc: '2.0', id: 1, method: 'server/discover' }],
    [
      'no protocolVersion',
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'server/discover',
        params: { _meta: { 'io.modelcontextprotocol/clientCapabilities': {} } },
      },
    ],
    [
      'no clientCapabilities',
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } },
      },
    ],
  ])('a request with %s gets 400 and -32602, with its id', async (_what, message) => {
    const answer = await post(runtime, message, modernHeaders(message));
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ id: 1, error: { code: -32602 } });
  });

  it('a request without MCP-Protocol-Version gets 400 and -32020', async () => {
    const answer = await postModern(runtime, modernMessage('tools/list'), undefined, {
      'mcp-protocol-version': undefined,
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe(-32020);
  });

  it('MCP-Protocol-Version different from _meta gets 400 and -32020', async () => {
    const message = modernMessage(
      'server/discover',
      {},
      { 'io.modelcontextprotocol/protocolVersion': 'v999.0.0' },
    );
    const answer = await postModern(runtime, message);
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe(-32020);
  });

  it('an unsupported version named by both gets 400 and -32022 with supported and requested', async () => {
    const message = modernMessage(
      'server/discover',
      {},
      { 'io.modelcontextprotocol/protocolVersion': 'v999.0.0' },
    );
    const answer = await postModern(runtime, message, undefined, { 'mcp-protocol-version': 'v999.0.0' });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ code: -32022, data: { requested: 'v999.0.0' } });
    expect(answer.body.error.data.supported).toContain('2026-07-28');
  });
});

describe('2026-07-28 over HTTP: Mcp-Method and Mcp-Name', () => {
  it('a request without Mcp-Method gets 400 and -32020', async () => {
    const answer = await postModern(runtime, modernMessage('tools/list'), undefined, {
      'mcp-method': undefined,
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe(-32020);
  });

  it.each(['prompts/list', 'TOOLS/LIST'])(
    'Mcp-Method %s for tools/list gets 400 and -32020 (values are case-sensitive)',
    async (value) => {
      const answer = await postModern(runtime, modernMessage('tools/list'), undefined, {
        'mcp-method': value,
      });
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe(-32020);
    },
  );

  it('ignores optional whitespace around header values', async () => {
    const message = modernMessage('tools/call', { name: 'echo', arguments: { text: 'x' } });
    const answer = await postModern(runtime, message, undefined, {
      'mcp-name': '  echo\t',
      'mcp-method': ' tools/call ',
    });
    expect(answer.status).toBe(200);
    expect(answer.body.result.content[0].text).toBe('x');
  });

  it.each([
    ['tools/call', { name: 'echo', arguments: { text: 'x' } }],
    ['prompts/get', { name: 'p' }],
    ['resources/read', { uri: 'test://x' }],
  ])('%s without Mcp-Name gets 400 and -32020', async (method, params) => {
    const answer = await postModern(runtime, modernMessage(method, params), undefined, {
      'mcp-name': undefined,
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe(-32020);
  });

  it('Mcp-Name not equal to params.name gets 400 and -32020', async () => {
    const message = modernMessage('tools/call', { name: 'echo', arguments: { text: 'x' } });
    const answer = await postModern(runtime, message, undefined, { 'mcp-name': 'wrong_tool_name' });
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe(-32020);
  });

  it('Mcp-Name in the base64 form is decoded before the comparison', async () => {
    const message = modernMessage('tools/call', { name: 'echo', arguments: { text: 'x' } });
    expect((await postModern(runtime, message, undefined, { 'mcp-name': b64('echo') })).status).toBe(200);
    const bad = await postModern(runtime, message, undefined, { 'mcp-name': '=?base64?ZWNobw?=' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe(-32020);
  });

  it('a resources/read URI is compared with Mcp-Name', async () => {
    const message = modernMessage('resources/read', { uri: 'test://static-text' });
    const answer = await postModern(runtime, message, undefined, { 'mcp-name': 'test://other' });
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe(-32020);
  });
});

describe('2026-07-28 over HTTP: Mcp-Param-* for x-mcp-header arguments', () => {
  const call = (args: Record<string, unknown>) =>
    modernMessage('tools/call', { name: 'regional', arguments: args });

  it('accepts matching headers and answers the call', async () => {
    const answer = await postModern(
      runtime,
      call({ region: 'us-west1', count: 42, verbose: true }),
      undefined,
      {
        'mcp-param-region': 'us-west1',
        'mcp-param-count': '42',
        'mcp-param-verbose': 'true',
      },
    );
    expect(answer.status).toBe(200);
    expect(answer.body.result.isError).toBeUndefined();
  });

  it('a present argument without its header gets 400 and -32020', async () => {
    const answer = await postModern(runtime, call({ region: 'us-west1' }));
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe(-32020);
    expect(answer.body.error.message).toContain('Mcp-Param-Region');
  });

  it('a header value different from the argument gets 400 and -32020', async () => {
    const answer = await postModern(runtime, call({ region: 'us-west1' }), undefined, {
      'mcp-param-region': 'eu-west1',
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe(-32020);
  });

  it('decodes =?base64?…?= values (UTF-8) before comparing', async () => {
    const answer = await postModern(runtime, call({ region: 'Hello, 世界' }), undefined, {
      'mcp-param-region': '=?base64?SGVsbG8sIOS4lueVjA==?=',
    });
    expect(answer.status).toBe(200);
  });

  it.each(['=?base64?SGVsbG8?=', '=?base64?SGVs!!!bG8=?=', '=?base64?/w==?='])(
    'refuses the malformed encoded value %s with 400 and -32020',
    async (value) => {
      const answer = await postModern(runtime, call({ region: 'Hello' }), undefined, {
        'mcp-param-region': value,
      });
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe(-32020);
    },
  );

  it('treats a value without both sentinel markers as literal', async () => {
    for (const value of ['SGVsbG8=', '=?base64?SGVsbG8=']) {
      const answer = await postModern(runtime, call({ region: value }), undefined, {
        'mcp-param-region': value,
      });
      expect(answer.status).toBe(200);
    }
  });

  it('compares integers numerically: 42.0 names 42, 43 does not', async () => {
    const ok = await postModern(runtime, call({ region: 'r', count: 42 }), undefined, {
      'mcp-param-region': 'r',
      'mcp-param-count': '42.0',
    });
    expect(ok.status).toBe(200);
    const bad = await postModern(runtime, call({ region: 'r', count: 42 }), undefined, {
      'mcp-param-region': 'r',
      'mcp-param-count': '43',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe(-32020);
  });

  it('booleans are true/false exactly', async () => {
    const bad = await postModern(runtime, call({ region: 'r', verbose: false }), undefined, {
      'mcp-param-region': 'r',
      'mcp-param-verbose': 'False',
    });
    expect(bad.status).toBe(400);
  });

  it('nested properties are reached by their path', async () => {
    const ok = await postModern(runtime, call({ region: 'r', options: { zone: 'z1' } }), undefined, {
      'mcp-param-region': 'r',
      'mcp-param-zone': 'z1',
    });
    expect(ok.status).toBe(200);
    const missing = await postModern(runtime, call({ region: 'r', options: { zone: 'z1' } }), undefined, {
      'mcp-param-region': 'r',
    });
    expect(missing.status).toBe(400);
  });

  it('an absent argument expects no header, and a header for an absent argument is a mismatch', async () => {
    expect(
      (await postModern(runtime, call({ region: 'r' }), undefined, { 'mcp-param-region': 'r' })).status,
    ).toBe(200);
    const extra = await postModern(runtime, call({ region: 'r' }), undefined, {
      'mcp-param-region': 'r',
      'mcp-param-count': '1',
    });
    expect(extra.status).toBe(400);
    expect(extra.body.error.code).toBe(-32020);
  });

  it('validates annotations once per runtime and names the broken tool', () => {
    const broken = (schema: Record<string, unknown>) =>
      createServer({
        name: 's',
        version: '1',
        tools: [tool({ name: 'bad', inputSchema: schema as never, handler: () => '' })],
      });
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ type: 'object', properties: { n: { type: 'number', 'x-mcp-header': 'N' } } }, /not number/],
      [
        {
          type: 'object',
          properties: { a: { type: 'array', items: { type: 'string', 'x-mcp-header': 'A' } } },
        },
        /through "properties" only/,
      ],
      [
        { type: 'object', properties: { a: { anyOf: [{ type: 'string', 'x-mcp-header': 'A' }] } } },
        /through "properties" only/,
      ],
      [
        {
          type: 'object',
          properties: {
            a: { type: 'string', 'x-mcp-header': 'A' },
            b: { type: 'string', 'x-mcp-header': 'a' },
          },
        },
        /not unique/,
      ],
      [{ type: 'object', properties: { a: { type: 'string', 'x-mcp-header': '' } } }, /HTTP token/],
      [{ type: 'object', properties: { a: { type: 'string', 'x-mcp-header': 'A B' } } }, /HTTP token/],
    ];
    for (const [schema, message] of cases) {
      const bad = broken(schema);
      expect(() => paramHeadersOf(bad)).toThrow(message);
      expect(() => paramHeadersOf(bad)).toThrow(/tool "bad"/);
    }
    const table = paramHeadersOf(runtime);
    expect(table.get('regional')?.map((p) => p.header)).toEqual([
      'mcp-param-region',
      'mcp-param-count',
      'mcp-param-verbose',
      'mcp-param-zone',
    ]);
    expect(paramHeadersOf(runtime)).toBe(table);
  });
});

describe('2026-07-28 over HTTP: status codes of answers', () => {
  it.each(['foo/bar', 'ping', 'logging/setLevel', 'resources/subscribe', 'initialize'])(
    '%s gets 404 and -32601 with its id',
    async (method) => {
      const message = modernMessage(method);
      const answer = await postModern(runtime, message);
      expect(answer.status).toBe(404);
      expect(answer.body).toMatchObject({ id: message.id, error: { code: -32601 } });
    },
  );

  it('a missing client capability gets 400 and -32021', async () => {
    const answer = await postModern(runtime, modernMessage('tools/call', { name: 'needs_sampling' }));
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { sampling: {} } },
    });
  });

  it('an unknown tool is an ordinary error result: 200 and -32602', async () => {
    const answer = await postModern(runtime, modernMessage('tools/call', { name: 'nope' }));
    expect(answer.status).toBe(200);
    expect(answer.body.error.code).toBe(-32602);
  });

  it('a notification gets 202 with an empty body', async () => {
    const message = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } };
    const answer = await post(runtime, message, { ...modernHeaders(message) });
    expect(answer.status).toBe(202);
    expect(answer.text).toBe('');
  });

  it('a client response on 2026-07-28 is refused with 400', async () => {
    const answer = await post(
      runtime,
      { jsonrpc: '2.0', id: 1, result: {} },
      modernHeaders(modernMessage('x')),
    );
    expect(answer.status).toBe(400);
  });

  it('a batch on 2026-07-28 is refused with 400 and -32600, never run', async () => {
    const answer = await post(
      runtime,
      [modernMessage('tools/list')],
      modernHeaders(modernMessage('tools/list')),
    );
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe(-32600);
  });

  it('ignores Mcp-Session-Id and never sends one', async () => {
    const answer = await postModern(runtime, modernMessage('tools/list'), undefined, {
      'mcp-session-id': 'whatever',
    });
    expect(answer.status).toBe(200);
    expect(answer.headers['mcp-session-id']).toBeUndefined();
  });

  it('echoes an id beyond 2^53 byte for byte', async () => {
    const text = JSON.stringify(modernMessage('tools/list')).replace(/"id":\d+/, '"id":9223372036854775807');
    const answer = await post(runtime, text, modernHeaders({ method: 'tools/list' }));
    expect(answer.status).toBe(200);
    expect(JsonInt.is(answer.body.id) && answer.body.id.literal).toBe('9223372036854775807');
  });
});
