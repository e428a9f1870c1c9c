import { execFile } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { trace } from '@opentelemetry/api';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { createServer, tool } from '../src/index.js';
import { elicitingClient, legacy, modern } from './helpers/demo.js';
import { run } from './helpers/run.js';

// No SDK is registered in this file: the API's no-op provider and propagators are in force.
const seen: (boolean | undefined)[] = [];
const runtime = createServer({
  name: 'untraced',
  version: '1.0.0',
  tools: [
    tool({
      name: 'probe',
      inputSchema: z.object({}),
      handler: () => {
        seen.push(trace.getActiveSpan()?.isRecording());
        return 'ok';
      },
    }),
    tool({
      name: 'ask',
      inputSchema: z.object({}),
      handler: async (_args, ctx) => {
        await ctx.elicit({ message: 'Name?', requestedSchema: { type: 'object', properties: {} } });
        return 'done';
      },
    }),
  ],
});

it('records no span and adds nothing to the wire when no SDK is registered', async () => {
  const { response } = await run(runtime, modern('tools/call', { name: 'probe', arguments: {} }));
  expect(response.result.content).toEqual([{ type: 'text', text: 'ok' }]);
  expect(seen).toEqual([undefined]); // no SDK: no context manager, no span

  const { session, channel, sent } = await elicitingClient(runtime);
  await run(runtime, legacy('tools/call', { name: 'ask', arguments: {} }), { session, channel });
  expect(sent).toEqual([{ message: 'Name?', requestedSchema: { type: 'object', properties: {} } }]);
});

it('serves as usual when @opentelemetry/api is not installed at all (the optional peer is absent)', async () => {
  const fixtures = fileURLToPath(new URL('./fixtures/no-otel/', import.meta.url));
  const { stdout } = await promisify(execFile)(process.execPath, [
    '--import',
    pathToFileURL(`${fixtures}register.mjs`).href,
    `${fixtures}serve-one.mjs`,
  ]);
  expect(JSON.parse(stdout)).toEqual({
    content: [{ type: 'text', text: 'ok' }],
    api: 'ERR_MODULE_NOT_FOUND',
  });
});
