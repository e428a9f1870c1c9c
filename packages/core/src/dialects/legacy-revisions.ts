import type { Dialect } from './dialect.js';
import { legacyDialect } from './legacy.js';
import { keys } from './projection.js';

/** 2025-03-26: no titles, no `_meta` on listed objects, no structured content, no resource links; batches. */
export const rev20250326: Dialect = legacyDialect({
  version: '2025-03-26',
  batches: true,
  inputMethods: new Set(['sampling/createMessage', 'roots/list']),
  invalidToolArguments: 'protocol-error',
  structuredContent: false,
  resourceLinks: false,
  keys: {
    Implementation: keys('name', 'version'),
    Tool: keys('name', 'description', 'inputSchema', 'annotations'),
    Prompt: keys('name', 'description', 'arguments'),
    PromptArgument: keys('name', 'description', 'required'),
    Resource: keys('uri', 'name', 'description', 'mimeType', 'size', 'annotations'),
    ResourceTemplate: keys('uriTemplate', 'name', 'description', 'mimeType', 'annotations'),
    TextContent: keys('type', 'text', 'annotations'),
    ImageContent: keys('type', 'data', 'mimeType', 'annotations'),
    AudioContent: keys('type', 'data', 'mimeType', 'annotations'),
    EmbeddedResource: keys('type', 'resource', 'annotations'),
  },
});

/** 2025-06-18: titles, `_meta`, `outputSchema`/`structuredContent` (an object), resource links; no batches. */
export const rev20250618: Dialect = legacyDialect({
  version: '2025-06-18',
  batches: false,
  invalidToolArguments: 'protocol-error',
  structuredContent: true,
  resourceLinks: true,
  keys: {
    Implementation: keys('name', 'title', 'version'),
    Tool: keys('name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations', '_meta'),
    Prompt: keys('name', 'title', 'description', 'arguments', '_meta'),
    PromptArgument: keys('name', 'title', 'description', 'required'),
    Resource: keys('uri', 'name', 'title', 'description', 'mimeType', 'size', 'annotations', '_meta'),
    ResourceTemplate: keys('uriTemplate', 'name', 'title', 'description', 'mimeType', 'annotations', '_meta'),
  },
});

/**
 * 2025-11-25: adds icons and richer implementation info, and answers invalid tool arguments as a
 * tool execution error (SEP-1303); its tasks feature is not served.
 */
export const rev20251125: Dialect = legacyDialect({
  version: '2025-11-25',
  batches: false,
  invalidToolArguments: 'tool-error',
  structuredContent: true,
  resourceLinks: true,
  keys: {},
});
