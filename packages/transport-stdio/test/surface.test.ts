import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as stdio from '../src/index.js';

const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe('the public surface', () => {
  it('exports exactly serve, redirectConsole, the defaults and the error table', () => {
    expect(Object.keys(stdio).sort()).toEqual([
      'DEFAULT_MAX_LINE_BYTES',
      'DEFAULT_WRITE_TIMEOUT',
      'STDIO_ERRORS',
      'redirectConsole',
      'serve',
    ]);
  });

  it('declares each local error once, and the README lists every code', () => {
    expect(Object.keys(stdio.STDIO_ERRORS)).toEqual([
      'SNODO_ERR_WRITE_TIMEOUT',
      'SNODO_ERR_WRITE_FAILED',
      'SNODO_ERR_READ_FAILED',
    ]);
    for (const [code, row] of Object.entries(stdio.STDIO_ERRORS)) expect(row.code).toBe(code);
    for (const code of Object.keys(stdio.STDIO_ERRORS)) expect(README).toContain(`\`${code}\``);
    for (const code of [-32600, -32700, -32000, -32001]) expect(README).toContain(`\`${code}\``);
  });

  it('documents every option with its default', () => {
    const options = [
      'input',
      'output',
      'writeTimeout',
      'maxLineBytes',
      'requestTimeout',
      'executor',
      'maxConcurrency',
      'maxQueue',
      'signal',
      'console',
    ];
    for (const option of options)
      expect(README).toMatch(new RegExp(`^\\|\\s*\`${option}\`\\s*\\|[^|]+\\|`, 'm'));
  });

  it("the README's stdio server is under 25 lines and serves a real client", async () => {
    const block = /## A complete stdio server\n\n```ts\n([\s\S]*?)```/.exec(README)?.[1];
    expect(block).toBeDefined();
    const source = block as string;
    expect(source.trimEnd().split('\n').length).toBeLessThan(25);
    // Inside the package, so '@snodo/transport-stdio' (self-reference), '@snodo/core' and zod resolve.
    const file = fileURLToPath(new URL('../.readme-example.mjs', import.meta.url));
    writeFileSync(file, source);
    try {
      const server = spawn(process.execPath, [file], { stdio: ['pipe', 'pipe', 'pipe'] });
      let out = '';
      server.stdout.setEncoding('utf8').on('data', (text: string) => {
        out += text;
      });
      server.stdin.end(
        `${JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: {
            name: 'echo',
            arguments: { text: 'from the README' },
            _meta: {
              'io.modelcontextprotocol/protocolVersion': '2026-07-28',
              'io.modelcontextprotocol/clientCapabilities': {},
            },
          },
        })}\n`,
      );
      const [code] = await once(server, 'exit');
      expect(code).toBe(0);
      expect(JSON.parse(out)).toMatchObject({
        id: 1,
        result: { content: [{ type: 'text', text: 'from the README' }] },
      });
    } finally {
      rmSync(file, { force: true });
    }
  });
});
