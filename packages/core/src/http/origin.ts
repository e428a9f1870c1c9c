import { optionError } from '../errors/snodo-error.js';

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

/**
 * The DNS-rebinding rule for a present `Origin` header: its host must match a rule (and the rule's
 * port, when it names one). `null` (an opaque origin), a value that is not a URL, and a URL with
 * userinfo are refused.
 */
export function originAllowed(origin: string, rules: readonly HostRule[]): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.username !== '' || url.password !== '' || url.hostname === '') return false;
  const name = url.hostname.toLowerCase();
  const port = url.port === '' ? DEFAULT_PORTS[url.protocol] : Number(url.port);
  return matches(rules, name, port);
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
