import { z } from 'zod';
import {
  createChangeHub,
  createServer,
  prompt,
  resource,
  resourceTemplate,
  type ServerDefinition,
  tool,
} from '../../src/index.js';

export const SECRET = 'a-test-secret-of-at-least-32-bytes!!';

/** A server with every feature of the core issue, for the feature tests. */
export function featureServer(extra: Partial<ServerDefinition> = {}) {
  const hub = createChangeHub();
  const runtime = createServer({
    name: 'features',
    version: '2.0.0',
    hub,
    mrtr: { secret: SECRET },
    tools: [
      tool({ name: 'echo', inputSchema: z.object({ text: z.string() }), handler: ({ text }) => text }),
      tool({
        name: 'ask',
        description: 'Asks for a name, then greets it',
        handler: async (_args, ctx) => {
          const answer = await ctx.elicit({
            message: 'What is your name?',
            requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
          });
          return `Hello, ${(answer.content as { name: string }).name}!`;
        },
      }),
      tool({
        name: 'interview',
        description: 'Two rounds: a name, then a colour',
        handler: async (_args, ctx) => {
          const schema = (key: string) => ({ type: 'object', properties: { [key]: { type: 'string' } } });
          const first = await ctx.elicit(
            { message: 'Name?', requestedSchema: schema('name') },
            { key: 'name', state: { step: 1 } },
          );
          const second = await ctx.elicit(
            { message: 'Colour?', requestedSchema: schema('colour') },
            { key: 'colour', state: { step: 2 } },
          );
          return `${(first.content as any).name} likes ${(second.content as any).colour} (step ${(ctx.state as any)?.step})`;
        },
      }),
      tool({
        name: 'everything-at-once',
        handler: async (_args, ctx) => {
          const answers = await ctx.input({
            sample: { method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } },
            roots: { method: 'roots/list' },
          });
          return `${(answers.sample as any).content.text} / ${(answers.roots as any).roots.length} roots`;
        },
      }),
      tool({
        name: 'busy',
        handler: (_a, ctx) => (ctx.state === 'later' ? 'done now' : ctx.retryLater('later')),
      }),
      tool({
        name: 'touch',
        inputSchema: z.object({ uri: z.string() }),
        handler: ({ uri }) => {
          hub.notifyResourceUpdated(uri);
          return 'touched';
        },
      }),
    ],
    resources: [
      resource({
        uri: 'demo://greeting',
        name: 'greeting',
        mimeType: 'text/plain',
        read: () => 'Hello from Snodo',
      }),
      resource({
        uri: 'demo://cached',
        name: 'cached',
        cache: { ttlMs: 5, cacheScope: 'public' },
        read: () => ({ blob: 'AAEC', mimeType: 'application/octet-stream' }),
      }),
      resource({
        uri: 'demo://secret',
        name: 'secret',
        read: async (ctx) => {
          const answer = await ctx.elicit({
            message: 'Password?',
            requestedSchema: { type: 'object', properties: { pw: { type: 'string' } } },
          });
          return `secret for ${(answer.content as any).pw}`;
        },
      }),
    ],
    resourceTemplates: [
      resourceTemplate({
        uriTemplate: 'demo://items/{id}',
        name: 'item',
        mimeType: 'application/json',
        read: ({ id }) => JSON.stringify({ id }),
        complete: { id: (value) => ['1', '2', '10', '20'].filter((id) => id.startsWith(value)) },
      }),
      resourceTemplate({
        uriTemplate: 'demo://{+path}',
        name: 'anything',
        read: ({ path }) => `path ${path}`,
      }),
    ],
    prompts: [
      prompt({
        name: 'greet',
        description: 'Greets someone',
        arguments: [{ name: 'name', required: true }, { name: 'style' }],
        get: ({ name, style }) => `Say hello to ${name}${style ? ` in a ${style} way` : ''}`,
        complete: {
          name: (value) =>
            ['Ada', 'Alan', 'Grace'].filter((n) => n.toLowerCase().startsWith(value.toLowerCase())),
        },
      }),
      prompt({
        name: 'confirm',
        get: async (_args, ctx) => {
          const answer = await ctx.elicit({
            message: 'Sure?',
            requestedSchema: { type: 'object', properties: {} },
          });
          return [{ role: 'user', content: { type: 'text', text: `answer: ${answer.action}` } }];
        },
      }),
    ],
    extensions: {
      'dev.snodo/health': {
        settings: { detail: 'aggregate' },
        methods: { 'health/check': () => ({ status: 'up' }) },
      },
    },
    ...extra,
  });
  return { runtime, hub };
}

export const ELICIT = { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };
