import {
  type ChangeHub,
  type PromptDefinition,
  prompt,
  type ResourceDefinition,
  type ResourceTemplateDefinition,
  resource,
  resourceTemplate,
  type ToolDefinition,
  tool,
  uiResource,
} from '@snodo/core';
import { z } from 'zod';

const ITEM_IDS = ['1', '2', '3', '10', '42'];
const NAMES = ['Ada', 'Alan', 'Barbara', 'Grace', 'Linus'];

/**
 * `ask`: MRTR on 2026-07-28 (server-initiated elicitation before it) for a name, then a greeting.
 * With `afterMs` it first works that long (unless cancelled): a slow call that asks midway.
 */
export const ask: ToolDefinition = tool({
  name: 'ask',
  title: 'Ask for a name',
  description: 'Asks the user for their name (elicitation), after afterMs ms if given, then greets them',
  inputSchema: z.object({ afterMs: z.number().int().min(0).max(600_000).optional() }),
  handler: async ({ afterMs }, ctx) => {
    if (afterMs !== undefined && afterMs > 0) await pause(afterMs, ctx.signal);
    const answer = await ctx.elicit({
      message: 'What is your name?',
      requestedSchema: {
        type: 'object',
        properties: { name: { type: 'string', title: 'Name' } },
        required: ['name'],
      },
    });
    if (answer.action !== 'accept') return `No name given (${String(answer.action)}).`;
    return `Hello, ${String((answer.content as { name?: unknown } | undefined)?.name)}!`;
  },
});

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** `roots`: asks the client for its roots (`roots/list`, every initialize-based revision) and names them. */
export const roots: ToolDefinition = tool({
  name: 'roots',
  title: 'List the client’s roots',
  description: 'Asks the client for its roots (roots/list) and lists their URIs',
  handler: async (_args, ctx) => {
    const answer = await ctx.listRoots();
    const uris = (answer.roots as { uri?: unknown }[] | undefined)?.map((root) => String(root.uri)) ?? [];
    return uris.length === 0 ? 'No roots.' : `Roots: ${uris.join(', ')}`;
  },
});

/** `touch`: marks a resource updated, so its subscribers are notified. */
export function touch(hub: ChangeHub): ToolDefinition {
  return tool({
    name: 'touch',
    title: 'Touch a resource',
    description: 'Marks a resource as updated so that its subscribers are notified',
    inputSchema: z.object({ uri: z.string() }),
    handler: ({ uri }) => {
      hub.notifyResourceUpdated(uri);
      return `touched ${uri}`;
    },
  });
}

/** `show_greeting`: a tool linked to an MCP Apps page (`ui://everything/greeting.html`). */
export const showGreeting: ToolDefinition = tool({
  name: 'show_greeting',
  title: 'Show a greeting page',
  description: 'Greets someone; hosts that support MCP Apps show the result in a small HTML page',
  inputSchema: z.object({ name: z.string().default('world') }),
  ui: { resourceUri: 'ui://everything/greeting.html' },
  handler: ({ name }) => ({
    content: [{ type: 'text', text: `Hello, ${name}!` }],
    structuredContent: { name },
  }),
});

const GREETING_PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>Greeting</title></head>
<body><h1 id="greeting">Hello!</h1>
<script>
  // MCP Apps over postMessage (JSON-RPC 2.0): ui/initialize, then ui/notifications/initialized;
  // after that the host sends ui/notifications/tool-result with the tool's result.
  window.addEventListener('message', (event) => {
    const message = event.data;
    if (message?.jsonrpc !== '2.0') return;
    if (message.id === 1 && message.result) {
      window.parent.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/initialized', params: {} }, '*');
    } else if (message.method === 'ui/notifications/tool-result') {
      const name = message.params?.structuredContent?.name;
      if (name) document.getElementById('greeting').textContent = 'Hello, ' + name + '!';
    }
  });
  window.parent.postMessage({
    jsonrpc: '2.0',
    id: 1,
    method: 'ui/initialize',
    params: {
      appInfo: { name: 'everything-greeting', version: '1.0.0' },
      appCapabilities: {},
      protocolVersion: '2026-01-26',
    },
  }, '*');
</script></body></html>`;

export const RESOURCES: ResourceDefinition[] = [
  uiResource({
    uri: 'ui://everything/greeting.html',
    name: 'greeting-page',
    title: 'Greeting page',
    description: 'The MCP Apps page of show_greeting',
    html: GREETING_PAGE,
    prefersBorder: true,
  }),
  resource({
    uri: 'demo://greeting',
    name: 'greeting',
    title: 'Greeting',
    description: 'A static greeting',
    mimeType: 'text/plain',
    read: () => 'Hello from the Snodo everything demo!',
  }),
];

export const TEMPLATES: ResourceTemplateDefinition[] = [
  resourceTemplate({
    uriTemplate: 'demo://items/{id}',
    name: 'item',
    title: 'Item',
    description: 'One item by id',
    mimeType: 'application/json',
    read: ({ id }) => JSON.stringify({ id, name: `Item ${id}` }),
    complete: { id: (value) => ITEM_IDS.filter((id) => id.startsWith(value)) },
  }),
];

export const PROMPTS: PromptDefinition[] = [
  prompt({
    name: 'greet',
    title: 'Greet someone',
    description: 'A prompt that greets someone by name',
    arguments: [{ name: 'name', description: 'Who to greet', required: true }],
    get: ({ name }) => `Please greet ${name} warmly.`,
    complete: { name: (value) => NAMES.filter((name) => name.toLowerCase().startsWith(value.toLowerCase())) },
  }),
];
