import type { BackendSnapshot } from './catalog/snapshot.js';
import { exposedUri } from './names.js';
import type { Route } from './sessions.js';

/** The longest URI a link may carry to be rewritten (core's `maxUriLength` default). */
const MAX_LINK_URI = 4_096;

/** What rewriting one backend result's links needs: the backend's catalog, and where the result came from. */
export interface Linker {
  readonly snapshot: BackendSnapshot | undefined;
  /** The route of the call; on a principal's own session (`route.session`) every link is that principal's. */
  readonly route?: Route | undefined;
}

/**
 * The exposed URI of a backend URI in a result: when the backend's catalog has it (an exact
 * resource, or a match of one of its templates), or when a principal's own session handed it out
 * (recorded there, so its owner may read it: `BackendSession.handOut`). Undefined otherwise: the
 * link then stays as the backend wrote it.
 */
export function exposeUri(linker: Linker, uri: unknown, block?: Record<string, unknown>): string | undefined {
  const { snapshot, route } = linker;
  if (!snapshot || typeof uri !== 'string') return undefined;
  if (snapshot.resourceByOriginal.has(uri)) return exposedUri(snapshot.id, uri);
  if (uri === '' || uri.length > MAX_LINK_URI) return undefined;
  if (snapshot.templates.some((entry) => entry.template.match(uri) !== null)) {
    return exposedUri(snapshot.id, uri);
  }
  if (route?.session) {
    route.session.handOut(uri, block ?? { uri });
    return exposedUri(snapshot.id, uri);
  }
  return undefined;
}

/** Content blocks with `resource_link` and embedded `resource` URIs rewritten when their target is in the catalog. */
export function rewriteContent(linker: Linker, content: unknown): unknown {
  if (!Array.isArray(content)) return content;
  let changed = false;
  const out = content.map((block) => {
    const next = rewriteBlock(linker, block);
    if (next !== block) changed = true;
    return next;
  });
  return changed ? out : content;
}

function rewriteBlock(linker: Linker, block: unknown): unknown {
  if (typeof block !== 'object' || block === null) return block;
  const typed = block as Record<string, unknown>;
  if (typed.type === 'resource_link') {
    const uri = exposeUri(linker, typed.uri, typed);
    return uri === undefined ? block : { ...typed, uri };
  }
  if (typed.type === 'resource' && typeof typed.resource === 'object' && typed.resource !== null) {
    const resource = typed.resource as Record<string, unknown>;
    const uri = exposeUri(linker, resource.uri, resource);
    return uri === undefined ? block : { ...typed, resource: { ...resource, uri } };
  }
  return block;
}

/** A tool result with its content's links rewritten. */
export function rewriteToolResult(linker: Linker, result: Record<string, unknown>) {
  const content = rewriteContent(linker, result.content);
  return content === result.content ? result : { ...result, content };
}

/** A prompt result with each message's content rewritten (a message holds one block). */
export function rewritePromptResult(linker: Linker, result: Record<string, unknown>) {
  if (!Array.isArray(result.messages)) return result;
  return {
    ...result,
    messages: result.messages.map((message: unknown) => {
      if (typeof message !== 'object' || message === null) return message;
      const typed = message as Record<string, unknown>;
      const [content] = rewriteContent(linker, [typed.content]) as unknown[];
      return content === typed.content ? message : { ...typed, content };
    }),
  };
}

/** A read result with each of its `contents` items passed through `change` (the same object when none changed). */
export function mapContents(
  result: Record<string, unknown>,
  change: (item: Record<string, unknown>) => Record<string, unknown>,
): Record<string, unknown> {
  if (!Array.isArray(result.contents)) return result;
  return {
    ...result,
    contents: result.contents.map((item: unknown) =>
      typeof item === 'object' && item !== null ? change(item as Record<string, unknown>) : item,
    ),
  };
}

/** A read result whose contents' URIs are exposed when in the catalog (the one read always is). */
export function rewriteReadResult(
  linker: Linker,
  result: Record<string, unknown>,
  original: string,
  exposed: string,
) {
  return mapContents(result, (item) => {
    const uri = item.uri === original ? exposed : exposeUri(linker, item.uri, item);
    return uri === undefined ? item : { ...item, uri };
  });
}
