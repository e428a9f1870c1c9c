import { createServer } from '@snodo/core';
import { expect, it } from 'vitest';
import { listen } from '../src/index.js';

it('tells the runtime logger when it listens (with its URL) and when it closes', async () => {
  const lines: [string, Record<string, unknown>, string | undefined][] = [];
  const logger = {
    info: (fields: Record<string, unknown>, message?: string) => lines.push(['info', fields, message]),
    warn: (fields: Record<string, unknown>, message?: string) => lines.push(['warn', fields, message]),
    error: (fields: Record<string, unknown>, message?: string) => lines.push(['error', fields, message]),
  };
  const server = await listen({
    runtime: createServer({ name: 'logged', version: '1.0.0', logger }),
    port: 0,
  });
  const url = server.url();
  expect(lines).toEqual([['info', { url }, 'listening']]);
  await server.close();
  expect(lines.at(-1)).toEqual(['info', { url }, 'closing']);
});
