import type { Operation } from '../dispatch/operation.js';
import { complete } from './completion.js';
import { discover } from './discover.js';
import { getPrompt, listPrompts } from './prompts.js';
import { listResources, listResourceTemplates, readResource } from './resources.js';
import { callTool, listTools } from './tools.js';

/**
 * Core operations by method. A dialect decides whether a method exists in a revision; this table
 * says what it does. Features add their operations here; `dispatch` never changes for them.
 */
export const OPERATIONS: ReadonlyMap<string, Operation> = new Map<string, Operation>([
  ['server/discover', discover],
  ['ping', () => ({})],
  ['tools/list', listTools],
  ['tools/call', callTool],
  ['resources/list', listResources],
  ['resources/templates/list', listResourceTemplates],
  ['resources/read', readResource],
  ['prompts/list', listPrompts],
  ['prompts/get', getPrompt],
  ['completion/complete', complete],
]);
