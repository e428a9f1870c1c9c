import { ErrorCode } from '../errors/codes.js';
import type { ProtocolVersion } from '../protocol/types.js';
import {
  ALL_INPUT_METHODS,
  classifyWith,
  type Dialect,
  errorObject,
  type MethodSpec,
  type ToolArgumentFailure,
} from './dialect.js';
import { copyFields, type KeyTable, project, projectAll, withField } from './projection.js';

const request: MethodSpec = { kind: 'request' };
const note: MethodSpec = { kind: 'notification' };

const LEGACY_METHODS: ReadonlyMap<string, MethodSpec> = new Map([
  ['initialize', request],
  ['ping', request],
  ['tools/list', request],
  ['tools/call', request],
  ['prompts/list', request],
  ['prompts/get', request],
  ['resources/list', request],
  ['resources/templates/list', request],
  ['resources/read', request],
  ['resources/subscribe', request],
  ['resources/unsubscribe', request],
  ['completion/complete', request],
  ['logging/setLevel', request],
  ['notifications/initialized', note],
  ['notifications/cancelled', note],
  ['notifications/progress', note],
  ['notifications/roots/list_changed', note],
]);

export interface LegacyProfile {
  readonly version: ProtocolVersion;
  readonly batches: boolean;
  /** Server-to-client requests the revision has; every one when left out. */
  readonly inputMethods?: ReadonlySet<string>;
  /** How arguments failing a tool's input schema are answered (SEP-1303 from 2025-11-25 on). */
  readonly invalidToolArguments: ToolArgumentFailure;
  /** `structuredContent` exists (2025-06-18 on), and must then be a JSON object. */
  readonly structuredContent: boolean;
  /** `resource_link` content blocks exist (2025-06-18 on); before, links become text. */
  readonly resourceLinks: boolean;
  /** Allowed keys per object kind; kinds not listed keep every key. */
  readonly keys: KeyTable;
}

const STRIP = ['resultType', 'ttlMs', 'cacheScope'] as const;
const notStripped = (key: string): boolean => !(STRIP as readonly string[]).includes(key);
const notStructuredContent = (key: string): boolean => key !== 'structuredContent';

/** Builds the dialect of one initialize-based revision from its profile. */
export function legacyDialect(profile: LegacyProfile): Dialect {
  const { keys } = profile;
  const content = (blocks: unknown): unknown => {
    if (!Array.isArray(blocks)) return blocks;
    return blocks.map((block) => shapeContent(block, profile));
  };
  const shapers: Record<string, (result: Record<string, unknown>) => Record<string, unknown>> = {
    initialize: (r) => withField(r, 'serverInfo', project(r.serverInfo, keys.Implementation)),
    'tools/list': (r) => withField(r, 'tools', objectOutputSchemas(projectAll(r.tools, keys.Tool))),
    'tools/call': (r) => {
      const structured = r.structuredContent;
      const isObject = typeof structured === 'object' && structured !== null && !Array.isArray(structured);
      const dropStructured = !profile.structuredContent || (structured !== undefined && !isObject);
      const out = copyFields(r, dropStructured ? notStructuredContent : undefined);
      out.content = content(r.content);
      return out;
    },
    'prompts/list': (r) =>
      withField(
        r,
        'prompts',
        Array.isArray(r.prompts)
          ? r.prompts.map((prompt: Record<string, unknown>) => {
              const shaped = project(prompt, keys.Prompt) as Record<string, unknown>;
              return shaped.arguments
                ? withField(shaped, 'arguments', projectAll(shaped.arguments, keys.PromptArgument))
                : shaped;
            })
          : r.prompts,
      ),
    'prompts/get': (r) =>
      withField(
        r,
        'messages',
        Array.isArray(r.messages)
          ? r.messages.map((m: Record<string, unknown>) =>
              withField(m, 'content', shapeContent(m.content, profile)),
            )
          : r.messages,
      ),
    'resources/list': (r) => withField(r, 'resources', projectAll(r.resources, keys.Resource)),
    'resources/templates/list': (r) =>
      withField(r, 'resourceTemplates', projectAll(r.resourceTemplates, keys.ResourceTemplate)),
  };
  return Object.freeze({
    version: profile.version,
    era: 'legacy',
    batches: profile.batches,
    inputMethods: profile.inputMethods ?? ALL_INPUT_METHODS,
    invalidToolArguments: profile.invalidToolArguments,
    methods: LEGACY_METHODS,
    classify: (method, kind) => classifyWith(LEGACY_METHODS, method, kind),
    shapeResult(method, result) {
      const out = STRIP.some((key) => key in result) ? copyFields(result, notStripped) : result;
      const shaper = shapers[method];
      return shaper ? shaper(out) : out;
    },
    shapeError(error) {
      if (error.kind === 'resource-not-found') return errorObject(error, ErrorCode.ResourceNotFoundLegacy);
      return errorObject(error);
    },
  } satisfies Dialect);
}

function shapeContent(block: unknown, profile: LegacyProfile): unknown {
  if (typeof block !== 'object' || block === null) return block;
  const typed = block as Record<string, unknown>;
  if (typed.type === 'resource_link' && !profile.resourceLinks) {
    const label = typeof typed.name === 'string' ? `${typed.name}: ` : '';
    return project({ type: 'text', text: `${label}${String(typed.uri)}` }, profile.keys.TextContent);
  }
  const kind = CONTENT_KIND[String(typed.type)];
  return kind ? project(block, profile.keys[kind]) : block;
}

const CONTENT_KIND: Record<string, string> = {
  text: 'TextContent',
  image: 'ImageContent',
  audio: 'AudioContent',
  resource: 'EmbeddedResource',
  resource_link: 'ResourceLink',
};

/**
 * The initialize-based schemas type `Tool.outputSchema` as an object schema (`type: "object"`); a
 * tool whose output schema is anything else is listed without it there (its `structuredContent`
 * is dropped from results for the same reason).
 */
function objectOutputSchemas(tools: unknown): unknown {
  if (!Array.isArray(tools) || !tools.some(hasNonObjectOutputSchema)) return tools;
  return tools.map((tool: Record<string, unknown>) => {
    if (!hasNonObjectOutputSchema(tool)) return tool;
    const { outputSchema: _dropped, ...rest } = tool;
    return rest;
  });
}

function hasNonObjectOutputSchema(tool: unknown): boolean {
  if (typeof tool !== 'object' || tool === null || !('outputSchema' in tool)) return false;
  const schema = (tool as { outputSchema: unknown }).outputSchema;
  return typeof schema !== 'object' || schema === null || (schema as { type?: unknown }).type !== 'object';
}
