import { dialectFor } from '../dialects/registry.js';
import { definitionError } from '../errors/snodo-error.js';
import { DEFAULT_CACHE_SCOPE, DEFAULT_PAGE_SIZE, DEFAULT_TTL_MS } from '../limits/defaults.js';
import { nonNegativeInteger, oneOf, positiveInteger } from '../limits/validate.js';
import {
  type CacheHint,
  type Implementation,
  type ProtocolVersion,
  type ServerCapabilities,
  SUPPORTED_VERSIONS,
} from '../protocol/types.js';
import type { Instructions, Runtime } from './runtime.js';
import { compileTool, type Tool, type ToolDefinition } from './tool.js';

export interface ServerDefinition {
  name: string;
  version: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
  icons?: unknown[];
  /** Guidance for the model: a string, or a function of the request (revision, client, principal). */
  instructions?: Instructions;
  tools?: ToolDefinition[];
  /** Items per list page; default 100. */
  pageSize?: number;
  /** `ttlMs` / `cacheScope` of cacheable 2026-07-28 results; default 60,000 ms, private. */
  cache?: CacheHint;
  /** Restrict the revisions served (default: all of 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26). */
  protocolVersions?: ProtocolVersion[];
  /** Declare the `logging` capability (default true): handlers' `log` reaches clients that ask. */
  logging?: boolean;
}

/** Validates a server definition once and returns the immutable runtime every transport serves. */
export function createServer(definition: ServerDefinition): Runtime {
  if (typeof definition !== 'object' || definition === null) throw definitionError('createServer needs a definition');
  if (typeof definition.name !== 'string' || definition.name === '') throw definitionError('name must be a non-empty string');
  if (typeof definition.version !== 'string' || definition.version === '') {
    throw definitionError('version must be a non-empty string');
  }
  const versions = selectVersions(definition.protocolVersions);
  const tools = compileTools(definition.tools ?? []);
  const serverInfo: Implementation = { name: definition.name, version: definition.version };
  if (definition.title !== undefined) serverInfo.title = definition.title;
  if (definition.description !== undefined) serverInfo.description = definition.description;
  if (definition.websiteUrl !== undefined) serverInfo.websiteUrl = definition.websiteUrl;
  if (definition.icons !== undefined) serverInfo.icons = definition.icons;

  const capabilities: ServerCapabilities = {};
  if (definition.logging !== false) capabilities.logging = {};
  if (tools.list.length > 0) capabilities.tools = {};
  if (definition.instructions !== undefined && typeof definition.instructions !== 'string' && typeof definition.instructions !== 'function') {
    throw definitionError('instructions must be a string or a function');
  }

  return Object.freeze({
    serverInfo: Object.freeze(serverInfo),
    versions,
    modernVersions: versions.filter((v) => dialectFor(v)?.era === 'modern'),
    legacyVersions: versions.filter((v) => dialectFor(v)?.era === 'legacy'),
    instructions: definition.instructions,
    capabilities: Object.freeze(capabilities),
    tools: tools.byName,
    toolList: tools.list,
    pageSize: positiveInteger('pageSize', definition.pageSize, DEFAULT_PAGE_SIZE),
    shaping: Object.freeze({
      serverInfo,
      ttlMs: nonNegativeInteger('cache.ttlMs', definition.cache?.ttlMs, DEFAULT_TTL_MS),
      cacheScope: oneOf('cache.cacheScope', definition.cache?.cacheScope, ['public', 'private'], DEFAULT_CACHE_SCOPE),
    }),
  });
}

function selectVersions(requested: ProtocolVersion[] | undefined): readonly ProtocolVersion[] {
  if (requested === undefined) return SUPPORTED_VERSIONS;
  if (!Array.isArray(requested) || requested.length === 0) {
    throw definitionError(`protocolVersions must be a non-empty array of ${SUPPORTED_VERSIONS.join(', ')}`);
  }
  for (const version of requested) {
    if (!SUPPORTED_VERSIONS.includes(version)) {
      throw definitionError(`protocolVersions: unknown revision ${JSON.stringify(version)}; known: ${SUPPORTED_VERSIONS.join(', ')}`);
    }
  }
  return Object.freeze(SUPPORTED_VERSIONS.filter((version) => requested.includes(version)));
}

function compileTools(definitions: ToolDefinition[]): { byName: ReadonlyMap<string, Tool>; list: readonly Tool[] } {
  if (!Array.isArray(definitions)) throw definitionError('tools must be an array');
  const byName = new Map<string, Tool>();
  for (const definition of definitions) {
    const compiled = compileTool(definition);
    if (byName.has(compiled.name)) throw definitionError(`duplicate tool name "${compiled.name}"`);
    byName.set(compiled.name, compiled);
  }
  const list = Object.freeze([...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)));
  return { byName, list };
}
