import { checkRequiredScopes } from '../auth/scopes.js';
import type { HandlerContext } from '../dispatch/context.js';
import { definitionError } from '../errors/table.js';
import type { ContentBlock } from '../protocol/types.js';
import type { Completer } from './resource.js';

export interface PromptArgument {
  name: string;
  title?: string;
  description?: string;
  required?: boolean;
}

export interface PromptMessage {
  role: 'user' | 'assistant';
  content: ContentBlock;
}

/** A prompt handler returns messages, a full result, or a string (one user text message). */
export type PromptReturn =
  | string
  | PromptMessage[]
  | { description?: string; messages: PromptMessage[]; _meta?: Record<string, unknown> };

export interface PromptDefinition {
  name: string;
  title?: string;
  description?: string;
  icons?: unknown[];
  _meta?: Record<string, unknown>;
  arguments?: PromptArgument[];
  get: (args: Record<string, string>, context: HandlerContext) => PromptReturn | Promise<PromptReturn>;
  /** Completers for arguments (`completion/complete` with `ref/prompt`). */
  complete?: Record<string, Completer>;
  /** OAuth scopes a caller needs (HTTP): hidden from `prompts/list` without them, 403 on `prompts/get`. */
  requiredScopes?: readonly string[];
}

export interface Prompt {
  readonly name: string;
  readonly definition: PromptDefinition;
  readonly listing: Readonly<Record<string, unknown>>;
}

export const prompt = (definition: PromptDefinition): PromptDefinition => definition;

const PROMPT_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

export function compilePrompt(definition: PromptDefinition): Prompt {
  const name = definition?.name;
  if (typeof name !== 'string' || !PROMPT_NAME.test(name)) {
    throw definitionError(
      `prompt name ${JSON.stringify(name)} is invalid: use 1 to 128 characters from A-Z, a-z, 0-9, '_', '-' and '.'`,
    );
  }
  if (typeof definition.get !== 'function') throw definitionError(`prompt "${name}": get must be a function`);
  checkRequiredScopes(definition.requiredScopes, `prompt "${name}"`);
  const args = definition.arguments ?? [];
  const seen = new Set<string>();
  for (const argument of args) {
    if (typeof argument?.name !== 'string' || argument.name === '')
      throw definitionError(`prompt "${name}": every argument needs a name`);
    if (seen.has(argument.name))
      throw definitionError(`prompt "${name}": duplicate argument "${argument.name}"`);
    seen.add(argument.name);
  }
  for (const key of Object.keys(definition.complete ?? {})) {
    if (!seen.has(key))
      throw definitionError(`prompt "${name}": complete names "${key}", which is not one of its arguments`);
  }
  const listing: Record<string, unknown> = { name };
  for (const key of ['title', 'description', 'icons', '_meta'] as const) {
    if (definition[key] !== undefined) listing[key] = definition[key];
  }
  if (args.length > 0) listing.arguments = args;
  return Object.freeze({ name, definition, listing: Object.freeze(listing) });
}

export function toPromptResult(value: PromptReturn): Record<string, unknown> {
  if (typeof value === 'string')
    return { messages: [{ role: 'user', content: { type: 'text', text: value } }] };
  if (Array.isArray(value)) return { messages: value };
  if (typeof value === 'object' && value !== null && Array.isArray(value.messages)) return { ...value };
  throw new TypeError('a prompt handler must return a string, a message array or { messages }');
}
