// A real browser as the client: Debian's headless Chromium loads a page from one loopback origin,
// and the page calls the MCP endpoint on another port with fetch (a CORS preflight, then a
// 2026-07-28 tools/call). The test reads what the page wrote.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeAll, start } from './helpers.js';

const CHROMIUM = '/usr/bin/chromium';
let browser: BrowserContext;
let profile: string;
const pages: Server[] = [];

beforeAll(async () => {
  // Tests install what they need: Debian's chromium package (we are root on CI).
  if (!existsSync(CHROMIUM)) execFileSync('apt-get', ['install', '-y', 'chromium'], { stdio: 'ignore' });
  profile = mkdtempSync(join(tmpdir(), 'snodo-chromium-'));
  // A fresh profile directory (playwright passes it as --user-data-dir).
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

afterEach(async () => {
  await closeAll();
  // The browser keeps its connections alive: close them with the server.
  await Promise.all(
    pages.splice(0).map((server) => {
      const closed = new Promise((resolve) => server.close(resolve));
      server.closeAllConnections();
      return closed;
    }),
  );
});

/** The page: calls `mcp` with fetch and writes the outcome into #result (data-done once finished). */
function page(mcp: string): string {
  const message = {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name: 'echo',
      arguments: { text: 'hello from the browser' },
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  };
  return `<!doctype html><meta charset="utf-8"><title>cors</title><pre id="result"></pre>
<script>
  const out = document.getElementById('result');
  fetch(${JSON.stringify(mcp)}, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'echo',
    },
    body: ${JSON.stringify(JSON.stringify(message))},
  })
    .then(async (response) => { out.textContent = response.status + ' ' + (await response.json()).result.content[0].text; })
    .catch((error) => { out.textContent = 'blocked: ' + error.name; })
    .finally(() => out.setAttribute('data-done', ''));
</script>`;
}

/** Serves the page on a free loopback port; resolves with its origin. */
async function servePage(html: () => string): Promise<string> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(html());
  });
  pages.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function visit(origin: string): Promise<string> {
  const tab = await browser.newPage();
  try {
    await tab.goto(origin);
    await tab.waitForSelector('#result[data-done]', { state: 'attached' });
    return (await tab.textContent('#result')) ?? '';
  } finally {
    await tab.close();
  }
}

describe('a browser page on another origin calls the MCP endpoint', () => {
  it('with cors allowing its origin: preflight, then tools/call, and the page reads the result', async () => {
    let mcp = '';
    const origin = await servePage(() => page(mcp));
    const server = await start({ cors: { origins: [origin] } });
    mcp = server.url();
    expect(await visit(origin)).toBe('200 hello from the browser');
    // The preflight and the call.
    expect(server.stats().requests).toBe(2);
  });

  it('without cors the browser blocks the call (the preflight gets no Access-Control headers)', async () => {
    let mcp = '';
    const origin = await servePage(() => page(mcp));
    const server = await start();
    mcp = server.url();
    expect(await visit(origin)).toBe('blocked: TypeError');
  });
});
