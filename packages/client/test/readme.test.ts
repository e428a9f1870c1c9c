import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';

const readme = readFileSync(fileURLToPath(new URL('../README.md', import.meta.url)), 'utf8');
const snippet = /## Connect and call a tool\n\n```ts\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
const module = fileURLToPath(new URL('./.readme-snippet.ts', import.meta.url));

afterAll(() => rmSync(module, { force: true }));

describe('README', () => {
  it('the first example imports only published packages', () => {
    const imports = [...snippet.matchAll(/from '([^']+)'/g)].map((m) => m[1]);
    expect(imports.sort()).toEqual(['@snodo/client', '@snodo/core', '@snodo/transport-http', 'zod']);
  });

  it('the first example runs as written: echo over HTTP and in-process', async () => {
    writeFileSync(module, snippet);
    const printed: unknown[][] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((...args) => void printed.push(args));
    try {
      await import(module);
    } finally {
      log.mockRestore();
    }
    expect(printed).toEqual([
      ['2026-07-28', 'demo', [{ type: 'text', text: 'hello' }]],
      ['2026-07-28', 'demo', [{ type: 'text', text: 'hello' }]],
    ]);
  });
});
