import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createServer, tool } from '@snodo/core';

const require = createRequire(import.meta.url);

/** Where the workspace's @snodo/<name> lives. */
export function packageDir(name: string): string {
  return dirname(require.resolve(`@snodo/${name}/package.json`));
}

/**
 * A second copy of @snodo/core, as a user gets with two packages that each install their own:
 * its built files copied to a temporary directory (its dependencies resolve through a link to
 * core's node_modules), loaded as separate modules.
 */
export async function secondCore(): Promise<{ core: typeof import('@snodo/core'); remove(): void }> {
  const source = packageDir('core');
  const root = mkdtempSync(join(tmpdir(), 'snodo-second-core-'));
  cpSync(join(source, 'dist'), join(root, 'dist'), { recursive: true });
  cpSync(join(source, 'package.json'), join(root, 'package.json'));
  symlinkSync(join(source, 'node_modules'), join(root, 'node_modules'), 'dir');
  const core = (await import(
    pathToFileURL(join(root, 'dist', 'index.js')).href
  )) as typeof import('@snodo/core');
  return { core, remove: () => rmSync(root, { recursive: true, force: true }) };
}

export function echoServer(
  core: Pick<typeof import('@snodo/core'), 'createServer' | 'tool'> = { createServer, tool },
) {
  return core.createServer({
    name: 'surface',
    version: '1.0.0',
    tools: [
      core.tool({
        name: 'echo',
        description: 'Echoes text',
        inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
        handler: (input) => String((input as { text: string }).text),
      }),
    ],
  });
}

/** A 2026-07-28 request, as one line of JSON-RPC. */
export function modernRequest(id: number, method: string, params: Record<string, unknown> = {}): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {},
        'io.modelcontextprotocol/clientInfo': { name: 'surface-test', version: '0' },
      },
    },
  });
}
