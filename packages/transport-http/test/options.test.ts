import { readFileSync } from 'node:fs';
import { createServer } from '@snodo/core';
import { describe, expect, it } from 'vitest';
import { listen } from '../src/index.js';

const runtime = createServer({ name: 'options', version: '1.0.0' });

/** The option names in the README's options table (its first column, `name` or `name(args)`). */
function readmeOptions(): string[] {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const section = readme.slice(
    readme.indexOf('## Options'),
    readme.indexOf('\n## ', readme.indexOf('## Options') + 1),
  );
  return [...section.matchAll(/^\| `(\w+)(?:\([^)]*\))?` \|/gm)].map((match) => match[1]!);
}

describe('listen() options', () => {
  it('an unknown option is refused, and the error lists every option the README documents', async () => {
    const error = await listen({ runtime, port: 0, bogus: 1 } as never).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'SNODO_ERR_INVALID_OPTION' });
    const message = (error as Error).message;
    expect(message).toMatch(/^Invalid option: unknown listen\(\) option "bogus"; known: /);
    const known = message.slice(message.indexOf('known: ') + 'known: '.length).split(', ');
    const documented = readmeOptions();
    expect(documented.length).toBeGreaterThan(20);
    expect(new Set(known)).toEqual(new Set(documented));
  });
});
