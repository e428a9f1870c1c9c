import { createServer, type Runtime, type ServerDefinition } from '@snodo/core';
import { TOOLS } from './tools.js';

export { UNICODE_TEXT } from './tools.js';

/**
 * The demo server every transport, benchmark and interop test serves: one definition, extended
 * feature by feature. Tools live in tools.ts; resources (`demo://greeting`, template
 * `demo://items/{id}`), the `greet` prompt and the `ask`/`touch` tools join `definition` here.
 */
export function createEverythingServer(overrides: Partial<ServerDefinition> = {}): Runtime {
  const definition: ServerDefinition = {
    name: 'everything',
    title: 'Snodo everything demo',
    version: '0.0.0',
    instructions:
      'A demo server: echo repeats text, add sums numbers, sleep waits, fail fails, unicode returns non-ASCII text.',
    tools: TOOLS,
    ...overrides,
  };
  return createServer(definition);
}
