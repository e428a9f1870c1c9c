import {
  McpUiResourceMetaSchema,
  McpUiToolMetaSchema,
  RESOURCE_MIME_TYPE,
  RESOURCE_URI_META_KEY,
} from '@modelcontextprotocol/ext-apps';
import { describe, expect, it } from 'vitest';
import {
  createServer,
  sandboxDomain,
  UI_EXTENSION,
  UI_MIME_TYPE,
  UI_RESOURCE_URI_META_KEY,
  uiResource,
} from '../src/index.js';
import { initialize, legacy, MODERN, modern } from './helpers/demo.js';
import { run } from './helpers/run.js';
import { expectResponse } from './helpers/wire-schema.js';

const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const WITH_UI = { [CAPS]: { extensions: { [UI_EXTENSION]: { mimeTypes: [UI_MIME_TYPE] } } } };

const runtime = createServer({
  name: 'apps',
  version: '1',
  tools: [
    {
      name: 'show',
      description: 'Shows a page',
      ui: { resourceUri: 'ui://apps/page.html' },
      handler: () => 'shown',
    },
  ],
  resources: [
    uiResource({
      uri: 'ui://apps/page.html',
      name: 'page',
      html: '<!doctype html><p>hi</p>',
      csp: { connectDomains: ['https://api.example.com'] },
      prefersBorder: true,
    }),
    uiResource({
      uri: 'ui://apps/fixed.html',
      name: 'fixed',
      html: () => '<p>fixed</p>',
      domain: 'fixed.example.com',
    }),
  ],
});

describe('sandboxDomain', () => {
  it('is the published example value', async () => {
    expect(await sandboxDomain('http://localhost:4000/mcp')).toBe(
      '0307c5dc3988887979d60ecbb5101189.claudemcpcontent.com',
    );
  });

  it('matches the extension constants', () => {
    expect(UI_MIME_TYPE).toBe(RESOURCE_MIME_TYPE);
    expect(UI_RESOURCE_URI_META_KEY).toBe(RESOURCE_URI_META_KEY);
  });
});

describe('UI resources for a client that declares io.modelcontextprotocol/ui', () => {
  it('the server declares the extension', async () => {
    const { response } = await run(runtime, modern('server/discover', {}, WITH_UI));
    expect(response.result.capabilities.extensions[UI_EXTENSION]).toEqual({ mimeTypes: [UI_MIME_TYPE] });
  });

  it('lists the tool link, valid against the extension types', async () => {
    const { response } = await run(runtime, modern('tools/list', {}, WITH_UI));
    expectResponse(MODERN, 'tools/list', response);
    const meta = response.result.tools[0]._meta;
    expect(meta[UI_RESOURCE_URI_META_KEY]).toBe('ui://apps/page.html');
    expect(McpUiToolMetaSchema.parse(meta.ui)).toEqual({ resourceUri: 'ui://apps/page.html' });
  });

  it('reads the page with the MCP Apps MIME type and _meta.ui, domain computed from the request URL', async () => {
    const url = 'https://mcp.example.com/api/mcp';
    const { response } = await run(
      runtime,
      modern('resources/read', { uri: 'ui://apps/page.html' }, WITH_UI),
      { url },
    );
    expectResponse(MODERN, 'resources/read', response);
    const [contents] = response.result.contents;
    expect(contents.mimeType).toBe(UI_MIME_TYPE);
    expect(McpUiResourceMetaSchema.parse(contents._meta.ui)).toEqual({
      csp: { connectDomains: ['https://api.example.com'] },
      prefersBorder: true,
      domain: await sandboxDomain(url),
    });
    const list = await run(runtime, modern('resources/list', {}, WITH_UI));
    expect(list.response.result.resources.map((r: any) => r.mimeType)).toEqual([UI_MIME_TYPE, UI_MIME_TYPE]);
  });

  it('a fixed domain overrides auto; without a request URL auto sends none', async () => {
    const fixed = await run(runtime, modern('resources/read', { uri: 'ui://apps/fixed.html' }, WITH_UI), {
      url: 'http://x/mcp',
    });
    expect(fixed.response.result.contents[0]._meta.ui.domain).toBe('fixed.example.com');
    const noUrl = await run(runtime, modern('resources/read', { uri: 'ui://apps/page.html' }, WITH_UI));
    expect(noUrl.response.result.contents[0]._meta.ui.domain).toBeUndefined();
  });

  it('works through the negotiated capabilities on the initialize-based revisions', async () => {
    const init = await run(runtime, initialize('2025-06-18', { extensions: { [UI_EXTENSION]: {} } }));
    const session = (init.outcome as any).session;
    const tools = await run(runtime, legacy('tools/list'), { session });
    expect(tools.response.result.tools[0]._meta.ui.resourceUri).toBe('ui://apps/page.html');
    const read = await run(runtime, legacy('resources/read', { uri: 'ui://apps/page.html' }), {
      session,
      url: 'http://localhost:4000/mcp',
    });
    expectResponse('2025-06-18', 'resources/read', read.response);
    expect(read.response.result.contents[0]._meta.ui.domain).toBe(
      '0307c5dc3988887979d60ecbb5101189.claudemcpcontent.com',
    );
  });
});

describe('UI resources for a client that did not declare the extension', () => {
  it('are ordinary HTML resources and the tool has no UI link', async () => {
    const tools = await run(runtime, modern('tools/list'));
    expect(tools.response.result.tools[0]._meta).toBeUndefined();
    const list = await run(runtime, modern('resources/list'));
    expect(list.response.result.resources.map((r: any) => r.mimeType)).toEqual(['text/html', 'text/html']);
    const read = await run(runtime, modern('resources/read', { uri: 'ui://apps/page.html' }), {
      url: 'http://x/mcp',
    });
    expect(read.response.result.contents).toEqual([
      { uri: 'ui://apps/page.html', mimeType: 'text/html', text: '<!doctype html><p>hi</p>' },
    ]);
  });

  it('refuses non-ui:// URIs at definition', () => {
    expect(() => uiResource({ uri: 'https://x/page', name: 'p', html: '' })).toThrow(
      /must start with ui:\/\//,
    );
    expect(() =>
      createServer({
        name: 's',
        version: '1',
        tools: [{ name: 't', ui: { resourceUri: 'x://y' }, handler: () => '' }],
      }),
    ).toThrow(/must start with ui:\/\//);
  });
});
