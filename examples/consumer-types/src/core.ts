// Every feature of @snodo/core a README shows, through its public types.
import {
  createChangeHub,
  createServer,
  decodeMessage,
  dispatch,
  encodeJson,
  prompt,
  resource,
  resourceTemplate,
  tool,
} from '@snodo/core';
import { z } from 'zod';

const hub = createChangeHub();
const runtime = createServer({
  name: 'notes',
  version: '1.0.0',
  hub,
  tools: [
    tool({ name: 'echo', inputSchema: z.object({ text: z.string() }), handler: ({ text }) => text }),
    tool({
      name: 'add',
      inputSchema: z.object({ a: z.number(), b: z.number().optional(), note: z.string().default('') }),
      outputSchema: z.object({ sum: z.number(), label: z.string().optional() }),
      handler: ({ a, b }) => ({ content: [], structuredContent: { sum: a + (b ?? 0) } }),
    }),
    tool({
      name: 'ask',
      handler: async (_args, ctx) => {
        const answer = await ctx.elicit({
          message: 'Your name?',
          requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
        });
        return `Hello, ${(answer.content as { name: string }).name}!`;
      },
    }),
  ],
  resources: [resource({ uri: 'notes://readme', name: 'readme', mimeType: 'text/plain', read: () => 'Hi' })],
  resourceTemplates: [
    resourceTemplate({
      uriTemplate: 'notes://items/{id}',
      name: 'item',
      read: ({ id }) => `item ${id}`,
      complete: { id: (v) => ['1', '2', '10'].filter((id) => id.startsWith(v)) },
    }),
  ],
  prompts: [
    prompt({
      name: 'greet',
      arguments: [{ name: 'name', required: true }],
      get: ({ name }) => `Greet ${name}`,
      complete: { name: (v) => ['Ada', 'Alan'].filter((n) => n.startsWith(v)) },
    }),
  ],
  mrtr: { secret: 'a secret of at least thirty-two bytes, shared' },
});

const outcome = await dispatch(runtime, decodeMessage('{"jsonrpc":"2.0","id":1,"method":"ping"}'));
if (outcome.type === 'response') encodeJson(outcome.message);
hub.notifyResourceUpdated('notes://readme');
