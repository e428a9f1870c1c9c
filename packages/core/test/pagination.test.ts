// Every list pages with opaque cursors, on every revision: following nextCursor yields exactly the
// unpaged list, in order, and a bad cursor is -32602. (run() checks each answer against the schema.)
import { describe, expect, it } from 'vitest';
import { createServer, ErrorCode, prompt, resource, resourceTemplate, tool } from '../src/index.js';
import { initialize, legacy, modern } from './helpers/demo.js';
import { run } from './helpers/run.js';

const LISTS = [
  ['tools/list', 'tools', 'name'],
  ['prompts/list', 'prompts', 'name'],
  ['resources/list', 'resources', 'uri'],
  ['resources/templates/list', 'resourceTemplates', 'uriTemplate'],
] as const;

function server(pageSize?: number) {
  const three = ['c', 'a', 'b'];
  return createServer({
    name: 'pages',
    version: '1.0.0',
    ...(pageSize === undefined ? {} : { pageSize }),
    tools: three.map((n) => tool({ name: `tool-${n}`, handler: () => n })),
    prompts: three.map((n) => prompt({ name: `prompt-${n}`, get: () => n })),
    resources: three.map((n) => resource({ uri: `demo://r/${n}`, name: n, read: () => n })),
    resourceTemplates: three.map((n) =>
      resourceTemplate({ uriTemplate: `demo://t/${n}/{id}`, name: n, read: ({ id }) => id ?? '' }),
    ),
  });
}

describe.each(['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'])('pagination on %s', (version) => {
  async function lister(pageSize?: number) {
    const runtime = server(pageSize);
    if (version === '2026-07-28') {
      return (method: string, params: Record<string, unknown> = {}) => run(runtime, modern(method, params));
    }
    const init = await run(runtime, initialize(version));
    const session = (init.outcome as { session: unknown }).session as never;
    return (method: string, params: Record<string, unknown> = {}) =>
      run(runtime, legacy(method, params), { session });
  }

  it.each(LISTS)(
    '%s: following nextCursor gives the whole list in order; a bad cursor is -32602',
    async (method, key, id) => {
      const whole = (await (await lister())(method)).response.result;
      expect(whole.nextCursor).toBeUndefined();
      const expected = whole[key].map((item: Record<string, string>) => item[id]);
      expect(expected).toHaveLength(3);
      expect([...expected].sort()).toEqual(expected); // deterministic order: by code unit

      const list = await lister(2);
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const { response } = await list(method, cursor === undefined ? {} : { cursor });
        pages++;
        seen.push(...response.result[key].map((item: Record<string, string>) => item[id]));
        cursor = response.result.nextCursor;
      } while (cursor !== undefined && pages < 10);
      expect(pages).toBe(2);
      expect(seen).toEqual(expected);

      for (const bad of ['nope!', 'djE6OTk', 42, '']) {
        const { response } = await list(method, { cursor: bad });
        expect(response.error.code).toBe(ErrorCode.InvalidParams);
      }
    },
  );
});
