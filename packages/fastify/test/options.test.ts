import { readFileSync } from 'node:fs';
import { createServer } from '@snodo/core';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { snodo } from '../src/index.js';

const runtime = createServer({ name: 'options', version: '1.0.0' });
const app = Fastify();
afterEach(() => app.close());

/** The option names in the README's options table (first column; a row may name several). */
function readmeOptions(): string[] {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const start = readme.indexOf('## Options');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  return [...section.matchAll(/^\| ([^|]+)\|/gm)].flatMap((row) =>
    [...row[1]!.matchAll(/`(\w+)`/g)].map((name) => name[1]!),
  );
}

describe('plugin options', () => {
  it('an unknown option fails registration, and the error lists every option the README documents', async () => {
    const error = await app
      .register(snodo, { runtime, bogus: 1 } as never)
      .ready()
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toMatchObject({ code: 'SNODO_ERR_INVALID_OPTION' });
    const message = (error as Error).message;
    expect(message).toMatch(/^Invalid option: unknown @snodo\/fastify option "bogus"; known: /);
    const known = message.slice(message.indexOf('known: ') + 'known: '.length).split(', ');
    // Fastify's own register options reach the plugin too; its README does not list them.
    const fastifyOwn = ['prefix', 'logLevel', 'logSerializers'];
    const documented = readmeOptions();
    expect(documented.length).toBeGreaterThan(15);
    expect(new Set(known)).toEqual(new Set([...documented, ...fastifyOwn]));
  });
});
