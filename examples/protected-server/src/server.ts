import { createServer, type Runtime, tool } from '@snodo/core';
import { z } from 'zod';

/** The scopes the demo's authorization server grants and its tools require. */
export const DEMO_SCOPES = ['mcp:tools', 'mcp:admin'] as const;

/**
 * The demo tools behind authorization: `whoami` shows the verified token's claims as handlers see
 * them (`context.auth`), `add` is an ordinary tool, and `reset_counters` needs the `mcp:admin` scope
 * (hidden from `tools/list` without it; a call gets 403 `insufficient_scope`).
 */
export function createProtectedServer(): Runtime {
  let calls = 0;
  return createServer({
    name: 'snodo-protected-server',
    version: '0.0.0',
    tools: [
      tool({
        name: 'whoami',
        description: 'The caller as the verified token says',
        handler: (_args, context) => {
          calls++;
          const { principal, clientId, scopes } = context.auth ?? {};
          return { content: [], structuredContent: { principal, clientId, scopes } };
        },
      }),
      tool({
        name: 'add',
        description: 'Adds two numbers',
        inputSchema: z.object({ a: z.number(), b: z.number() }),
        handler: ({ a, b }) => {
          calls++;
          return String(a + b);
        },
      }),
      tool({
        name: 'reset_counters',
        description: 'Resets the call counter (needs mcp:admin)',
        requiredScopes: ['mcp:admin'],
        handler: () => {
          const before = calls;
          calls = 0;
          return `reset ${before} calls`;
        },
      }),
    ],
  });
}
