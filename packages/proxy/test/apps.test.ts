// MCP Apps through the proxy: a backend tool's UI link points at the page's exposed URI, the page
// is served with its `_meta.ui` as the backend wrote it, and only frontends that declared the
// `io.modelcontextprotocol/ui` extension see either.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { type Client, type ConnectOptions, connect, type Target } from '@snodo/client';
import { UI_EXTENSION, UI_MIME_TYPE, UI_RESOURCE_URI_META_KEY } from '@snodo/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProxy, type McpProxy } from '../src/index.js';
import { catalogServer, frontend } from './helpers/proxy.js';
import { type Started, startDemoHttp } from './helpers/servers.js';

const require = createRequire(import.meta.url);
/** `@modelcontextprotocol/server-basic-vanillajs`: an MCP App server built with the official v2 SDK. */
const VANILLA = join(dirname(require.resolve('@modelcontextprotocol/server-basic-vanillajs')), 'index.js');
const vanilla = (): Target => ({ stdio: { command: process.execPath, args: [VANILLA, '--stdio'] } });
const WITH_UI: ConnectOptions = {
  capabilities: { extensions: { [UI_EXTENSION]: { mimeTypes: [UI_MIME_TYPE] } } },
};

const GREETING = 'ui://everything/greeting.html';
const TIME = 'ui://get-time/mcp-app.html';

describe('MCP Apps through the proxy', () => {
  let demo: Started;
  let proxy: McpProxy;
  const clients: Client[] = [];

  beforeAll(async () => {
    demo = await startDemoHttp();
    proxy = await createProxy({
      backends: [
        { id: 'demo', target: { http: demo.url } },
        { id: 'van', target: vanilla() },
        {
          id: 'lost',
          target: catalogServer({
            tools: [
              {
                name: 'orphan',
                inputSchema: { type: 'object' },
                _meta: { ui: { resourceUri: 'ui://nowhere/page.html' }, other: 1 },
              },
            ],
          }),
        },
      ],
    });
  });

  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => {});
    await proxy?.close();
    await demo?.stop();
  });

  async function open(target: Target, options: ConnectOptions = {}): Promise<Client> {
    const client =
      'direct' in target ? await frontend(target.direct, options) : await connect(target, options);
    clients.push(client);
    return client;
  }

  it('a frontend that declared the extension gets the links rewritten and the pages with their _meta.ui intact', async () => {
    const client = await open({ direct: proxy.runtime() }, WITH_UI);
    expect(client.serverCapabilities.extensions?.[UI_EXTENSION]).toEqual({ mimeTypes: [UI_MIME_TYPE] });
    const tools = await client.allTools();
    const byName = (name: string) => tools.find((tool) => tool.name === name);
    for (const [name, page] of [
      ['demo.show_greeting', `mcp-proxy://demo/${GREETING}`],
      ['van.get-time', `mcp-proxy://van/${TIME}`],
    ] as const) {
      expect(byName(name)?._meta).toMatchObject({
        ui: { resourceUri: page },
        [UI_RESOURCE_URI_META_KEY]: page,
      });
    }
    // A link to a page the backend does not list is not advertised: it could not be loaded here.
    expect(byName('lost.orphan')?._meta).toEqual({ other: 1 });

    // Each page as the backend serves it to a client that declared the extension: same text, same _meta.ui.
    for (const [id, target, page] of [
      ['demo', { http: demo.url }, GREETING],
      ['van', vanilla(), TIME],
    ] as const) {
      const direct = await open(target, WITH_UI);
      const original = (await direct.readResource(page)).contents[0] as Record<string, unknown>;
      const read = await client.readResource(`mcp-proxy://${id}/${page}`);
      expect(read.contents).toEqual([{ ...original, uri: `mcp-proxy://${id}/${page}` }]);
      expect(original.mimeType).toBe(UI_MIME_TYPE);
    }
    // The demo's page carries its _meta.ui: the sandbox domain it computed and its border preference.
    const greeting = (await client.readResource(`mcp-proxy://demo/${GREETING}`)).contents[0] as Record<
      string,
      any
    >;
    expect(greeting._meta.ui).toEqual({
      prefersBorder: true,
      domain: expect.stringMatching(/\.claudemcpcontent\.com$/),
    });
    expect(greeting.text).toContain('ui/initialize');

    const resources = await client.allResources();
    expect(resources.find((r) => r.uri === `mcp-proxy://van/${TIME}`)).toMatchObject({
      mimeType: UI_MIME_TYPE,
    });
    // The tools work as any other.
    const time = await client.callTool('van.get-time');
    expect(time.structuredContent).toEqual({ time: expect.any(String) });
    expect((await client.callTool('demo.show_greeting', { name: 'Ada' })).structuredContent).toEqual({
      name: 'Ada',
    });
  });

  it('a frontend that did not declare it sees no UI link, and each page as plain text/html without _meta.ui', async () => {
    const client = await open({ direct: proxy.runtime() });
    const tools = await client.allTools();
    for (const name of ['demo.show_greeting', 'van.get-time']) {
      const meta = tools.find((tool) => tool.name === name)?._meta as Record<string, unknown> | undefined;
      expect(meta?.ui).toBeUndefined();
      expect(meta?.[UI_RESOURCE_URI_META_KEY]).toBeUndefined();
    }
    const resources = await client.allResources();
    for (const [id, page] of [
      ['demo', GREETING],
      ['van', TIME],
    ] as const) {
      const uri = `mcp-proxy://${id}/${page}`;
      expect(resources.find((r) => r.uri === uri)).toMatchObject({ mimeType: 'text/html' });
      const [content] = (await client.readResource(uri)).contents as Record<string, unknown>[];
      expect(content).toMatchObject({ uri, mimeType: 'text/html', text: expect.stringContaining('<') });
      expect((content?._meta as Record<string, unknown> | undefined)?.ui).toBeUndefined();
    }
  });
});
