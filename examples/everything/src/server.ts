import {
  type ChangeHub,
  createChangeHub,
  createServer,
  type Runtime,
  type ServerDefinition,
  type TaskManager,
} from '@snodo/core';
import { ask, PROMPTS, RESOURCES, roots, showGreeting, TEMPLATES, touch } from './features.js';
import { longJob, TOOLS } from './tools.js';

export { UNICODE_TEXT } from './tools.js';

/**
 * The demo server every transport, benchmark and interop test serves. Tools live in tools.ts;
 * the MRTR `ask` tool, `touch`, resources, the `demo://items/{id}` template and the `greet`
 * prompt in features.ts. `hub` is the change hub `touch` notifies (pass one to share it). With
 * `tasks` the server offers the Tasks extension and the `long_job` tool runs as a task there.
 */
export function createEverythingServer(
  overrides: Partial<ServerDefinition> = {},
  hub: ChangeHub = createChangeHub(),
  tasks?: TaskManager,
): Runtime {
  const definition: ServerDefinition = {
    name: 'everything',
    title: 'Snodo everything demo',
    version: '0.0.0',
    instructions:
      'A demo server: echo repeats text, add sums numbers, sleep waits, fail fails, unicode returns non-ASCII text, console logs to the console, ask asks for your name, roots lists your roots, touch notifies subscribers of a resource.',
    tools: [...TOOLS, ask, roots, touch(hub), showGreeting, ...(tasks === undefined ? [] : [longJob])],
    ...(tasks === undefined ? {} : { tasks }),
    resources: RESOURCES,
    resourceTemplates: TEMPLATES,
    prompts: PROMPTS,
    hub,
    ...overrides,
  };
  return createServer(definition);
}
