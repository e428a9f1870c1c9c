import type { BackendSnapshot } from './catalog/snapshot.js';
import { exposedUri } from './names.js';

/**
 * The exposed URI of a backend URI when the backend's catalog has it (an exact resource, or a
 * match of one of its templates); undefined otherwise (the link then stays as the backend wrote it).
 */
export function exposeUri(snapshot: BackendSnapshot | undefined, uri: unknown): string | undefined {
  if (!snapshot || typeof uri !== 'string') return undefined;
  if (snapshot.resourceByOriginal.has(uri)) return exposedUri(snapshot.id, uri);
  if (uri.length <= 4_096 && snapshot.templates.some((entry) => entry.template.match(uri) !== null)) {
    return exposedUri(snapshot.id, uri);
  }
  return undefined;
}

/** Content blocks with `resource_link` and embedded `resource` URIs rewritten when their target is in the catalog. */
export function rewriteContent(snapshot: BackendSnapshot | undefined, content: unknown): unknown {
  if (!Array.isArray(content)) return content;
  let changed = false;
  const out = content.map((block) => {
    const next = rewriteBlock(snapshot, block);
    if (next !== block) changed = true;
    return next;
  });
  return changed ? out : content;
}

function rewriteBlock(snapshot: BackendSnapshot | undefined, block: unknown): unknown {
  if (typeof block !== 'object' || block === null) return block;
  const typed = block as Record<string, unknown>;
  if (typed.type === 'resource_link') {
    const uri = exposeUri(snapshot, typed.uri);
    return uri === undefined ? block : { ...typed, uri };
  }
  if (typed.type === 'resource' && typeof typed.resource === 'object' && typed.resource !== null) {
    const resource = typed.resource as Record<string, unknown>;
    const uri = exposeUri(snapshot, resource.uri);
    return uri === undefined ? block : { ...typed, resource: { ...resource, uri } };
  }
  return block;
}

/** A tool result with its content's links rewritten. */
export function rewriteToolResult(snapshot: BackendSnapshot | undefined, result: Record<string, unknown>) {
  const content = rewriteContent(snapshot, result.content);
  return content === result.content ? result : { ...result, content };
}

/** A prompt result with each message's content rewritten (a message holds one block). */
export function rewritePromptResult(snapshot: BackendSnapshot | undefined, result: Record<string, unknown>) {
  if (!Array.isArray(result.messages)) return result;
  return {
    ...result,
    messages: result.messages.map((message: unknown) => {
      if (typeof message !== 'object' || message === null) return message;
      const typed = message as Record<string, unknown>;
      const [content] = rewriteContent(snapshot, [typed.content]) as unknown[];
      return content === typed.content ? message : { ...typed, content };
    }),
  };
}

/** A read result whose contents' URIs are exposed when in the catalog (the one read always is). */
export function rewriteReadResult(
  snapshot: BackendSnapshot | undefined,
  result: Record<string, unknown>,
  original: string,
  exposed: string,
) {
  if (!Array.isArray(result.contents)) return result;
  return {
    ...result,
    contents: result.contents.map((item: unknown) => {
      if (typeof item !== 'object' || item === null) return item;
      const typed = item as Record<string, unknown>;
      const uri = typed.uri === original ? exposed : exposeUri(snapshot, typed.uri);
      return uri === undefined ? item : { ...typed, uri };
    }),
  };
}
