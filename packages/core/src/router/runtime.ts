import type { Shaping } from '../dialects/dialect.js';
import type { Implementation, ProtocolVersion, ServerCapabilities } from '../protocol/types.js';
import type { Tool } from './tool.js';

/** Arguments of an `instructions` function: who is asking, on which revision. */
export interface InstructionsContext {
  readonly protocolVersion: ProtocolVersion;
  readonly clientInfo: Implementation | undefined;
  readonly auth: { principal?: string; [key: string]: unknown } | undefined;
}

export type Instructions = string | ((context: InstructionsContext) => string | undefined);

/**
 * A defined server: an immutable value that every transport serves and `dispatch` reads.
 * Build it with `createServer`; never mutate it.
 */
export interface Runtime {
  readonly serverInfo: Implementation;
  /** The revisions served, newest first. */
  readonly versions: readonly ProtocolVersion[];
  readonly modernVersions: readonly ProtocolVersion[];
  readonly legacyVersions: readonly ProtocolVersion[];
  readonly instructions: Instructions | undefined;
  readonly capabilities: ServerCapabilities;
  readonly tools: ReadonlyMap<string, Tool>;
  /** Tools in list order (by name, code-unit order). */
  readonly toolList: readonly Tool[];
  readonly pageSize: number;
  readonly shaping: Shaping;
}
