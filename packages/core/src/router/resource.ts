import { checkRequiredScopes } from '../auth/scopes.js';
import type { HandlerContext } from '../dispatch/context.js';
import { definitionError } from '../errors/table.js';
import { DEFAULT_MAX_RESERVED_EXPRESSIONS } from '../limits/defaults.js';
import type { Annotations, CacheHint, ResourceContents } from '../protocol/types.js';
import { parseUriTemplate, type UriTemplate, UriTemplateError } from './uri-template.js';

/** What a read handler may return: text, one contents object (uri filled in), or a full contents list. */
export type ReadReturn =
  | string
  | { text: string; mimeType?: string; _meta?: Record<string, unknown> }
  | { blob: string; mimeType?: string; _meta?: Record<string, unknown> }
  | { contents: ResourceContents[] };

interface Describable {
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: Annotations;
  icons?: unknown[];
  _meta?: Record<string, unknown>;
  /** Cache hint of reads (and lists that include this item) on 2026-07-28; overrides the server's. */
  cache?: CacheHint;
  /** OAuth scopes a caller needs (HTTP): hidden from lists without them, 403 on reads and subscriptions. */
  requiredScopes?: readonly string[];
}

export interface ResourceDefinition extends Describable {
  uri: string;
  size?: number;
  read: (context: HandlerContext) => ReadReturn | Promise<ReadReturn>;
}

export type Completer = (
  value: string,
  context: { arguments: Record<string, string>; handler: HandlerContext },
) => readonly string[] | Promise<readonly string[]>;

export interface ResourceTemplateDefinition extends Describable {
  uriTemplate: string;
  read: (
    variables: Record<string, string>,
    context: HandlerContext & { uri: string },
  ) => ReadReturn | Promise<ReadReturn>;
  /** Completers for template variables (`completion/complete` with `ref/resource`). */
  complete?: Record<string, Completer>;
}

export interface Resource {
  readonly uri: string;
  readonly definition: ResourceDefinition;
  readonly listing: Readonly<Record<string, unknown>>;
}

export interface ResourceTemplate {
  readonly template: UriTemplate;
  readonly definition: ResourceTemplateDefinition;
  readonly listing: Readonly<Record<string, unknown>>;
}

export const resource = (definition: ResourceDefinition): ResourceDefinition => definition;
export const resourceTemplate = (definition: ResourceTemplateDefinition): ResourceTemplateDefinition =>
  definition;

function describe(definition: Describable, what: string): Record<string, unknown> {
  if (typeof definition.name !== 'string' || definition.name === '')
    throw definitionError(`${what}: name is required`);
  checkRequiredScopes(definition.requiredScopes, what);
  const listing: Record<string, unknown> = { name: definition.name };
  for (const key of ['title', 'description', 'mimeType', 'annotations', 'icons', '_meta'] as const) {
    if (definition[key] !== undefined) listing[key] = definition[key];
  }
  return listing;
}

export function compileResource(definition: ResourceDefinition): Resource {
  const uri = definition?.uri;
  if (typeof uri !== 'string' || !/^[A-Za-z][A-Za-z0-9+.-]*:/.test(uri)) {
    throw definitionError(`resource uri ${JSON.stringify(uri)} must be an absolute URI`);
  }
  if (typeof definition.read !== 'function')
    throw definitionError(`resource "${uri}": read must be a function`);
  const listing: Record<string, unknown> = { uri, ...describe(definition, `resource "${uri}"`) };
  if (definition.size !== undefined) listing.size = definition.size;
  return Object.freeze({ uri, definition, listing: Object.freeze(listing) });
}

export function compileTemplate(
  definition: ResourceTemplateDefinition,
  maxReservedExpressions = DEFAULT_MAX_RESERVED_EXPRESSIONS,
): ResourceTemplate {
  const text = definition?.uriTemplate;
  if (typeof text !== 'string') throw definitionError('resource template: uriTemplate must be a string');
  let template: UriTemplate;
  try {
    template = parseUriTemplate(text);
  } catch (error) {
    if (error instanceof UriTemplateError) throw definitionError(error.message);
    throw error;
  }
  const reserved = text.match(/\{\+/g)?.length ?? 0;
  if (reserved > maxReservedExpressions) {
    throw definitionError(
      `Unsupported URI template "${text}": at most ${maxReservedExpressions} {+var} expressions are allowed (each spans '/', so more make a match hard to predict), got ${reserved}`,
    );
  }
  if (typeof definition.read !== 'function')
    throw definitionError(`resource template "${text}": read must be a function`);
  for (const variable of Object.keys(definition.complete ?? {})) {
    if (!template.variables.includes(variable)) {
      throw definitionError(
        `resource template "${text}": complete names "${variable}", which is not one of its variables`,
      );
    }
  }
  const listing = { uriTemplate: text, ...describe(definition, `resource template "${text}"`) };
  return Object.freeze({ template, definition, listing: Object.freeze(listing) });
}

/** Turns a read handler's return value into the `contents` list of `resources/read`. */
export function toContents(value: ReadReturn, uri: string, mimeType: string | undefined): ResourceContents[] {
  if (typeof value === 'string') return [withMime({ uri, text: value }, mimeType)];
  if (typeof value !== 'object' || value === null)
    throw new TypeError('a read handler must return a string or an object');
  if ('contents' in value) return value.contents;
  return [withMime({ uri, ...value } as ResourceContents, value.mimeType ?? mimeType)];
}

function withMime(contents: ResourceContents, mimeType: string | undefined): ResourceContents {
  return mimeType === undefined || contents.mimeType !== undefined ? contents : { ...contents, mimeType };
}
