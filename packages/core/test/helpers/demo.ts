import { z } from 'zod';
import {
  type ClientRequestChannel,
  createServer,
  type Runtime,
  type ServerDefinition,
  type Session,
  tool,
} from '../../src/index.js';
import { run } from './run.js';

export const MODERN = '2026-07-28';

/** A server with two tools, the one the README shows. */
export function demoServer(extra: Partial<ServerDefinition> = {}) {
  return createServer({
    name: 'demo',
    version: '1.0.0',
    instructions: 'Use echo to repeat text.',
    tools: [
      tool({
        name: 'echo',
        title: 'Echo',
        description: 'Repeats its text',
        inputSchema: z.object({ text: z.string() }),
        handler: ({ text }) => text,
      }),
      {
        name: 'add',
        description: 'Adds two numbers',
        inputSchema: {
          type: 'object',
          properties: { a: { type: 'number' }, b: { type: 'number' } },
          required: ['a', 'b'],
        },
        outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
        handler: ({ a, b }) => ({ structuredContent: { sum: a + b }, content: [] }),
      },
    ],
    ...extra,
  });
}

let nextId = 1;

/** A 2026-07-28 request with the required `_meta`. */
export function modern(
  method: string,
  params: Record<string, unknown> = {},
  meta: Record<string, unknown> = {},
) {
  return {
    jsonrpc: '2.0',
    id: nextId++,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN,
        'io.modelcontextprotocol/clientCapabilities': {},
        'io.modelcontextprotocol/clientInfo': { name: 'test', version: '0' },
        ...meta,
      },
    },
  };
}

/** An initialize-based request (no version in `_meta`). */
export function legacy(method: string, params?: Record<string, unknown>) {
  return params === undefined
    ? { jsonrpc: '2.0', id: nextId++, method }
    : { jsonrpc: '2.0', id: nextId++, method, params };
}

export function initialize(version: string, capabilities: Record<string, unknown> = {}) {
  return legacy('initialize', {
    protocolVersion: version,
    capabilities,
    clientInfo: { name: 'test', version: '0' },
  });
}

/** An initialize-based session that declared elicitation, and a channel answering its requests. */
export interface ElicitingClient {
  readonly session: Session | undefined;
  /** Records the params of each server→client request and declines it. */
  readonly channel: ClientRequestChannel;
  readonly sent: (Record<string, unknown> | undefined)[];
}

/** Initializes a 2025-11-25 session with elicitation declared, and a channel that records and declines. */
export async function elicitingClient(runtime: Runtime): Promise<ElicitingClient> {
  const init = await run(runtime, initialize('2025-11-25', { elicitation: {} }));
  const session = init.outcome.type === 'response' ? init.outcome.session : undefined;
  const sent: (Record<string, unknown> | undefined)[] = [];
  const channel: ClientRequestChannel = {
    request: async (_method, params) => {
      sent.push(params);
      return { action: 'decline' };
    },
  };
  return { session, channel, sent };
}
