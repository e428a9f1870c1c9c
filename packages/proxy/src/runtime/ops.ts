import type { Operation } from '@snodo/core/internal';
import { callToolOperation, getPromptOperation } from './calls.js';
import type { Scope } from './context.js';
import { listOperation } from './lists.js';
import { completeOperation, readResourceOperation } from './reads.js';

/** The core methods a proxy runtime answers itself, from the live catalog, with `policy`. */
export function operations(scope: Scope): Record<string, Operation> {
  return {
    'tools/list': listOperation(scope, 'tools', 'tools'),
    'tools/call': callToolOperation(scope),
    'prompts/list': listOperation(scope, 'prompts', 'prompts'),
    'prompts/get': getPromptOperation(scope),
    'resources/list': listOperation(scope, 'resources', 'resources'),
    'resources/templates/list': listOperation(scope, 'templates', 'resourceTemplates'),
    'resources/read': readResourceOperation(scope),
    'completion/complete': completeOperation(scope),
  };
}
