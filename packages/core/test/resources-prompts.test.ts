import { describe, expect, it } from 'vitest';
import {
  createServer,
  DEFAULT_MAX_URI_LENGTH,
  ErrorCode,
  LEGACY_VERSIONS,
  ProtocolError,
  resourceTemplate,
} from '../src/index.js';
import { initialize, legacy, MODERN, modern } from './helpers/demo.js';
import { featureServer } from './helpers/features.js';
import { run } from './helpers/run.js';
import { expectResponse } from './helpers/wire-schema.js';

const { runtime } = featureServer();

/** Runs one request on `version`: statelessly on 2026-07-28, in a fresh session otherwise. */
async function on(version: string, method: string, params: Record<string, unknown> = {}) {
  if (version === MODERN) return (await run(runtime, modern(method, params))).response;
  const init = await run(runtime, initialize(version));
  return (await run(runtime, legacy(method, params), { session: (init.outcome as any).session })).response;
}

const ALL = [MODERN, ...LEGACY_VERSIONS];

describe.each(ALL)('resources on %s', (version) => {
  it('lists exact resources in URI order and templates', async () => {
    const list = await on(version, 'resources/list');
    expectResponse(version, 'resources/list', list);
    expect(list.result.resources.map((r: any) => r.uri)).toEqual([
      'demo://cached',
      'demo://greeting',
      'demo://secret',
    ]);
    const templates = await on(version, 'resources/templates/list');
    expectResponse(version, 'resources/templates/list', templates);
    expect(templates.result.resourceTemplates.map((t: any) => t.uriTemplate)).toEqual([
      'demo://items/{id}',
      'demo://{+path}',
    ]);
  });

  it('reads an exact resource, a template match and refuses an unknown URI with the revision code', async () => {
    const greeting = await on(version, 'resources/read', { uri: 'demo://greeting' });
    expectResponse(version, 'resources/read', greeting);
    expect(greeting.result.contents).toEqual([
      { uri: 'demo://greeting', mimeType: 'text/plain', text: 'Hello from Snodo' },
    ]);
    const item = await on(version, 'resources/read', { uri: 'demo://items/42' });
    expectResponse(version, 'resources/read', item);
    expect(item.result.contents[0]).toEqual({
      uri: 'demo://items/42',
      mimeType: 'application/json',
      text: '{"id":"42"}',
    });
    const missing = await on(version, 'resources/read', { uri: 'other://nope' });
    expectResponse(version, 'resources/read', missing);
    expect(missing.error.code).toBe(
      version === MODERN ? ErrorCode.InvalidParams : ErrorCode.ResourceNotFoundLegacy,
    );
    expect(missing.error.data).toEqual({ uri: 'other://nope' });
  });

  it('gets a prompt with arguments; a missing required argument or unknown prompt is -32602', async () => {
    const list = await on(version, 'prompts/list');
    expectResponse(version, 'prompts/list', list);
    expect(list.result.prompts.map((p: any) => p.name)).toEqual(['confirm', 'greet']);
    const got = await on(version, 'prompts/get', {
      name: 'greet',
      arguments: { name: 'Ada', style: 'warm' },
    });
    expectResponse(version, 'prompts/get', got);
    expect(got.result.messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Say hello to Ada in a warm way' } },
    ]);
    const missing = await on(version, 'prompts/get', { name: 'greet', arguments: {} });
    expect(missing.error).toMatchObject({ code: -32602, data: { missing: ['name'] } });
    const unknown = await on(version, 'prompts/get', { name: 'nope' });
    expect(unknown.error.code).toBe(-32602);
  });

  it('completes prompt arguments and template variables', async () => {
    const names = await on(version, 'completion/complete', {
      ref: { type: 'ref/prompt', name: 'greet' },
      argument: { name: 'name', value: 'a' },
    });
    expectResponse(version, 'completion/complete', names);
    expect(names.result.completion.values).toEqual(['Ada', 'Alan']);
    const ids = await on(version, 'completion/complete', {
      ref: { type: 'ref/resource', uri: 'demo://items/{id}' },
      argument: { name: 'id', value: '1' },
    });
    expect(ids.result.completion.values).toEqual(['1', '10']);
    const none = await on(version, 'completion/complete', {
      ref: { type: 'ref/prompt', name: 'greet' },
      argument: { name: 'style', value: '' },
    });
    expect(none.result.completion.values).toEqual([]);
    const unknown = await on(version, 'completion/complete', {
      ref: { type: 'ref/prompt', name: 'nope' },
      argument: { name: 'x', value: '' },
    });
    expect(unknown.error.code).toBe(-32602);
  });
});

describe('caching hints on 2026-07-28', () => {
  it('per item: a read uses the item hint, a list the smallest ttl and private if any item is', async () => {
    const cached = await on(MODERN, 'resources/read', { uri: 'demo://cached' });
    expect(cached.result).toMatchObject({ ttlMs: 5, cacheScope: 'public' });
    const greeting = await on(MODERN, 'resources/read', { uri: 'demo://greeting' });
    expect(greeting.result).toMatchObject({ ttlMs: 60_000, cacheScope: 'private' });
    const list = await on(MODERN, 'resources/list');
    expect(list.result.ttlMs).toBe(5);
    for (const method of ['prompts/list', 'resources/templates/list', 'tools/list', 'server/discover']) {
      const response = await on(MODERN, method);
      expect(typeof response.result.ttlMs).toBe('number');
      expect(['public', 'private']).toContain(response.result.cacheScope);
    }
  });

  it('per server', async () => {
    const server = createServer({
      name: 's',
      version: '1',
      cache: { ttlMs: 0, cacheScope: 'public' },
      tools: [{ name: 't', handler: () => '' }],
    });
    const { response } = await run(server, modern('tools/list'));
    expect(response.result).toMatchObject({ ttlMs: 0, cacheScope: 'public' });
  });
});

describe('resource templates', () => {
  it('the more specific template wins whatever the definition order', async () => {
    const a = resourceTemplate({ uriTemplate: 'x://{+rest}', name: 'wide', read: () => 'wide' });
    const b = resourceTemplate({ uriTemplate: 'x://items/{id}', name: 'narrow', read: () => 'narrow' });
    for (const order of [
      [a, b],
      [b, a],
    ]) {
      const server = createServer({ name: 's', version: '1', resourceTemplates: order });
      const { response } = await run(server, modern('resources/read', { uri: 'x://items/7' }));
      expect(response.result.contents[0].text).toBe('narrow');
    }
  });

  it('an unsupported template is refused when the server is defined, with its reason', () => {
    expect(() =>
      createServer({
        name: 's',
        version: '1',
        resourceTemplates: [resourceTemplate({ uriTemplate: 'x://{?q}', name: 'q', read: () => '' })],
      }),
    ).toThrow(/Unsupported URI template "x:\/\/\{\?q\}"/);
  });

  it('refuses a template with more than two {+var} expressions, and a URI over the length limit', async () => {
    const read = () => '';
    expect(() =>
      createServer({
        name: 's',
        version: '1',
        resourceTemplates: [resourceTemplate({ uriTemplate: 'x://{+a}/{+b}/{+c}', name: 'n', read })],
      }),
    ).toThrow(/at most 2 \{\+var\} expressions/);
    createServer({
      name: 's',
      version: '1',
      resourceTemplates: [resourceTemplate({ uriTemplate: 'x://{+a}/{+b}', name: 'n', read })],
    });
    createServer({
      name: 's',
      version: '1',
      maxReservedExpressions: 3,
      resourceTemplates: [resourceTemplate({ uriTemplate: 'x://{+a}/{+b}/{+c}', name: 'n', read })],
    });
    const short = featureServer({ maxUriLength: 12 }).runtime;
    expect(
      (await run(short, modern('resources/read', { uri: 'demo://a/bcd' }))).response.result.contents[0].text,
    ).toBe('path a/bcd');
    expect((await run(short, modern('resources/read', { uri: 'demo://a/bcde' }))).response.error.code).toBe(
      -32602,
    );
    const atLimit = `demo://${'a'.repeat(DEFAULT_MAX_URI_LENGTH - 7)}`;
    expect(atLimit).toHaveLength(DEFAULT_MAX_URI_LENGTH);
    expect(
      (await run(runtime, modern('resources/read', { uri: atLimit }))).response.result.contents[0].text,
    ).toBe(`path ${'a'.repeat(DEFAULT_MAX_URI_LENGTH - 7)}`);
    const over = (await run(runtime, modern('resources/read', { uri: `${atLimit}a` }))).response;
    expect(over.error).toMatchObject({ code: -32602, data: { maxLength: DEFAULT_MAX_URI_LENGTH } });
  });

  it('percent-decodes variables, %2F and %2E included: the handler receives "../../etc/passwd"', async () => {
    const { response } = await run(runtime, modern('resources/read', { uri: 'demo://items/a%20b' }));
    expect(response.result.contents[0].text).toBe('{"id":"a b"}');
    const uri = 'demo://items/%2e%2e%2f%2e%2e%2fetc%2fpasswd';
    const traversal = (await run(runtime, modern('resources/read', { uri }))).response;
    expect(traversal.result.contents[0]).toEqual({
      uri,
      mimeType: 'application/json',
      text: '{"id":"../../etc/passwd"}',
    });
  });

  it("the README's safe handler refuses a decoded traversal as resource-not-found", async () => {
    const notes = createServer({
      name: 's',
      version: '1',
      resourceTemplates: [
        resourceTemplate({
          uriTemplate: 'notes://items/{id}',
          name: 'note',
          read: ({ id }, { uri }) => {
            if (!id || !/^[\w-]+$/.test(id)) throw ProtocolError.resourceNotFound(uri);
            return `note ${id}`;
          },
        }),
      ],
    });
    const uri = 'notes://items/%2e%2e%2f%2e%2e%2fetc%2fpasswd';
    const refused = (await run(notes, modern('resources/read', { uri }))).response;
    expect(refused.error).toMatchObject({ code: ErrorCode.InvalidParams, data: { uri } });
    const note = (await run(notes, modern('resources/read', { uri: 'notes://items/a-1' }))).response;
    expect(note.result.contents[0].text).toBe('note a-1');
  });

  it('a hostile URI against {year}-{month}-{day} is resource-not-found, and the template still serves', async () => {
    // Before matching was linear this one read blocked the event loop for ~31 s (uri-template.test.ts counts the steps).
    const calendar = createServer({
      name: 's',
      version: '1',
      resourceTemplates: [
        resourceTemplate({
          uriTemplate: 'calendar://{year}-{month}-{day}',
          name: 'day',
          read: ({ year, month, day }) => `${year}/${month}/${day}`,
        }),
      ],
    });
    const hostile = `calendar://${'-'.repeat(4000)}!`;
    const refused = (await run(calendar, modern('resources/read', { uri: hostile }))).response;
    expect(refused.error).toMatchObject({ code: ErrorCode.InvalidParams, data: { uri: hostile } });
    const day = (await run(calendar, modern('resources/read', { uri: 'calendar://2026-07-28' }))).response;
    expect(day.result.contents[0].text).toBe('2026/07/28');
  });
});

describe('methods of features a server does not offer', () => {
  it('are -32601', async () => {
    const bare = createServer({ name: 'bare', version: '1' });
    for (const method of ['tools/list', 'prompts/list', 'resources/read', 'completion/complete']) {
      const { response } = await run(bare, modern(method, { uri: 'x://y' }));
      expect(response.error.code).toBe(ErrorCode.MethodNotFound);
    }
  });
});
