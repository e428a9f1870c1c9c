/**
 * The MCP shapes the router and dialects work with. They are deliberately open
 * (`[key: string]: unknown`): a dialect, not the type system, decides what a revision's wire carries.
 */

export type ProtocolVersion = '2026-07-28' | '2025-11-25' | '2025-06-18' | '2025-03-26';

export const MODERN_VERSIONS: readonly ProtocolVersion[] = ['2026-07-28'];
export const LEGACY_VERSIONS: readonly ProtocolVersion[] = ['2025-11-25', '2025-06-18', '2025-03-26'];
/** Every revision Snodo serves, newest first. */
export const SUPPORTED_VERSIONS: readonly ProtocolVersion[] = [...MODERN_VERSIONS, ...LEGACY_VERSIONS];

export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;

export interface Implementation {
  name: string;
  version: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
  icons?: unknown[];
  [key: string]: unknown;
}

export interface ClientCapabilities {
  experimental?: Record<string, unknown>;
  roots?: { listChanged?: boolean; [key: string]: unknown };
  sampling?: { context?: unknown; tools?: unknown; [key: string]: unknown };
  elicitation?: { form?: unknown; url?: unknown; [key: string]: unknown };
  extensions?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface ServerCapabilities {
  experimental?: Record<string, unknown>;
  logging?: Record<string, unknown>;
  completions?: Record<string, unknown>;
  prompts?: { listChanged?: boolean };
  resources?: { subscribe?: boolean; listChanged?: boolean };
  tools?: { listChanged?: boolean };
  extensions?: Record<string, unknown>;
  [key: string]: unknown;
}

export const LOG_LEVELS = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export type CacheScope = 'public' | 'private';

export interface CacheHint {
  ttlMs?: number;
  cacheScope?: CacheScope;
}

export interface Annotations {
  audience?: ('user' | 'assistant')[];
  priority?: number;
  lastModified?: string;
  [key: string]: unknown;
}

export type ContentBlock =
  | { type: 'text'; text: string; annotations?: Annotations; _meta?: Record<string, unknown> }
  | {
      type: 'image';
      data: string;
      mimeType: string;
      annotations?: Annotations;
      _meta?: Record<string, unknown>;
    }
  | {
      type: 'audio';
      data: string;
      mimeType: string;
      annotations?: Annotations;
      _meta?: Record<string, unknown>;
    }
  | {
      type: 'resource_link';
      uri: string;
      name: string;
      title?: string;
      description?: string;
      mimeType?: string;
      size?: number;
      annotations?: Annotations;
      _meta?: Record<string, unknown>;
    }
  | {
      type: 'resource';
      resource: ResourceContents;
      annotations?: Annotations;
      _meta?: Record<string, unknown>;
    };

export type ResourceContents =
  | { uri: string; mimeType?: string; text: string; _meta?: Record<string, unknown> }
  | { uri: string; mimeType?: string; blob: string; _meta?: Record<string, unknown> };

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
  [key: string]: unknown;
}

export interface CallToolResult {
  content: ContentBlock[];
  structuredContent?: unknown;
  isError?: boolean;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}
