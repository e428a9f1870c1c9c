import { optionError } from '../errors/table.js';
import { trimOws } from './header-values.js';

/** One allowed host: a lower-case name (IPv6 in brackets) and, when the entry named one, the only port. */
export interface HostRule {
  readonly name: string;
  readonly port: number | undefined;
}

/**
 * Parses `allowedOriginHosts` / `allowedHosts` entries: `name` or `name:port`, IPv6 as `[::1]` or
 * `[::1]:3000`. An entry with a port pins the port; one without accepts any port.
 */
export function parseHostRules(option: string, entries: unknown): readonly HostRule[] {
  if (!Array.isArray(entries))
    throw optionError(`${option} must be an array of host names, got ${typeof entries}`);
  return Object.freeze(
    entries.map((entry) => {
      const rule = typeof entry === 'string' ? splitHost(entry.trim().toLowerCase()) : undefined;
      if (!rule || rule.name === '') {
        throw optionError(`${option} entries must be "host" or "host:port", got ${JSON.stringify(entry)}`);
      }
      return Object.freeze(rule);
    }),
  );
}

function splitHost(value: string): HostRule | undefined {
  let name = value;
  let portText: string | undefined;
  if (value.startsWith('[')) {
    const end = value.indexOf(']');
    if (end < 0) return undefined;
    name = value.slice(0, end + 1);
    const rest = value.slice(end + 1);
    if (rest !== '') {
      if (!rest.startsWith(':')) return undefined;
      portText = rest.slice(1);
    }
  } else {
    const colon = value.lastIndexOf(':');
    if (colon >= 0) {
      if (value.indexOf(':') !== colon) return undefined; // a bare IPv6 address needs brackets
      name = value.slice(0, colon);
      portText = value.slice(colon + 1);
    }
  }
  if (/[\s/@?#]/.test(name)) return undefined;
  if (portText === undefined) return { name, port: undefined };
  if (!/^[0-9]{1,5}$/.test(portText)) return undefined;
  const port = Number(portText);
  return port <= 65535 ? { name, port } : undefined;
}

const DEFAULT_PORTS: Readonly<Record<string, number>> = {
  'http:': 80,
  'https:': 443,
  'ws:': 80,
  'wss:': 443,
};

/** An `allowedOrigins` option resolved: the list as a predicate over the Origin value. */
export type OriginPredicate = (origin: string) => boolean;

/**
 * Parses `allowedOrigins`: a list of origins (`scheme://host[:port]`, no path, no userinfo; the
 * default port may be spelled out or not) or a predicate over the Origin value as sent. A list
 * entry matches an Origin with the same scheme, host (any case) and port.
 */
export function parseAllowedOrigins(entries: unknown): OriginPredicate | undefined {
  if (entries === undefined) return undefined;
  if (typeof entries === 'function') return entries as OriginPredicate;
  if (!Array.isArray(entries)) {
    throw optionError(
      `allowedOrigins must be an array of origins or a function (origin) => boolean, got ${typeof entries}`,
    );
  }
  const origins = new Set<string>();
  for (const entry of entries) {
    const key = typeof entry === 'string' ? originKey(entry.trim()) : undefined;
    if (key === undefined) {
      throw optionError(
        `allowedOrigins entries must be origins like "https://app.example.com" (scheme, host, optional port; ` +
          `no path), got ${JSON.stringify(entry)}; use a function for anything else`,
      );
    }
    origins.add(key);
  }
  return (origin) => {
    const key = originKey(origin);
    return key !== undefined && origins.has(key);
  };
}

/** What a present `Origin` is checked against (the options `allowedOriginHosts` and `allowedOrigins`). */
export interface OriginPolicy {
  readonly originRules: readonly HostRule[];
  readonly allowedOrigins: OriginPredicate | undefined;
}

/**
 * The DNS-rebinding rule for a present `Origin` header (seed 002). It is allowed when any of these
 * says so: its host matches `allowedOriginHosts` (the loopback names by default; a rule's port,
 * when it names one); it is the request's own origin over HTTPS (`https:`, and the same host and
 * port as `requestUrl`, the URL the client used, which must be `https:` too); `allowedOrigins`
 * lists it or its predicate accepts it. `null` (an opaque origin), a value that is not a URL and a
 * URL with userinfo pass only a predicate that accepts them.
 */
export function originAllowed(origin: string, policy: OriginPolicy, requestUrl: string | undefined): boolean {
  const value = trimOws(origin);
  const url = parseUrl(value);
  if (url !== undefined && url.username === '' && url.password === '' && url.hostname !== '') {
    const name = url.hostname.toLowerCase();
    const port = url.port === '' ? DEFAULT_PORTS[url.protocol] : Number(url.port);
    if (matches(policy.originRules, name, port)) return true;
    if (url.protocol === 'https:' && requestUrl !== undefined) {
      const own = parseUrl(requestUrl);
      if (own?.protocol === 'https:' && own.host === url.host) return true;
    }
  }
  return policy.allowedOrigins?.(value) === true;
}

/** `scheme://host[:port]` of an origin (the port only when not the scheme's default), or undefined. */
function originKey(value: string): string | undefined {
  const url = parseUrl(value);
  if (url === undefined || url.host === '' || url.username !== '' || url.password !== '') return undefined;
  if ((url.pathname !== '' && url.pathname !== '/') || url.search !== '' || url.hash !== '') return undefined;
  return `${url.protocol}//${url.host}`;
}

function parseUrl(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

/** The optional `allowedHosts` rule for the `Host` header (`name` or `name:port`). */
export function hostAllowed(host: string | undefined, rules: readonly HostRule[]): boolean {
  if (host === undefined) return false;
  const rule = splitHost(host.trim().toLowerCase());
  if (!rule) return false;
  return matches(rules, rule.name, rule.port);
}

function matches(rules: readonly HostRule[], name: string, port: number | undefined): boolean {
  for (const rule of rules) {
    if (rule.name === name && (rule.port === undefined || rule.port === port)) return true;
  }
  return false;
}
