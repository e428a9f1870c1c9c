import { PROXY_URI_SCHEME } from './defaults.js';

/** The name frontends see for a backend's tool or prompt: `<prefix><separator><name>`, or the name alone for prefix ''. */
export function exposedName(prefix: string, separator: string, name: string): string {
  return prefix === '' ? name : `${prefix}${separator}${name}`;
}

/** `mcp-proxy://<id>/<original>`: where a backend's resource (or template) is exposed. */
export function exposedUri(id: string, original: string): string {
  return `${PROXY_URI_SCHEME}${id}/${original}`;
}

/** The backend id and original URI of an exposed one, or undefined when `uri` is not of that form. */
export function parseExposedUri(uri: string): { id: string; original: string } | undefined {
  if (!uri.startsWith(PROXY_URI_SCHEME)) return undefined;
  const rest = uri.slice(PROXY_URI_SCHEME.length);
  const slash = rest.indexOf('/');
  if (slash <= 0 || slash === rest.length - 1) return undefined;
  return { id: rest.slice(0, slash), original: rest.slice(slash + 1) };
}
