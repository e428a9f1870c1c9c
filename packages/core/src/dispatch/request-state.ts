import { JsonInt } from '../json/int.js';

/**
 * MRTR `requestState`, integrity-protected:
 *
 *   name "." base64url(payload) "." base64url(HMAC-SHA-256(key, name "." base64url(payload)))
 *
 * `name` is the keyring key that signed it, so a verifier picks that key at once and a state
 * signed by a key it does not hold is refused by name. The payload binds the state to the method, a digest of the original params (without `_meta`,
 * `inputResponses` and `requestState`), the principal and an expiry, and carries the input
 * responses gathered in earlier rounds plus the handler's own state. It is signed, not encrypted:
 * it holds only what the client itself sent or may see.
 */
export interface StatePayload {
  readonly v: 1;
  /** method */
  readonly m: string;
  /** params digest */
  readonly d: string;
  /** principal digest */
  readonly p: string;
  /** expires at (ms since epoch) */
  readonly e: number;
  /** rounds taken so far */
  readonly n: number;
  /** input responses gathered so far */
  readonly r: Record<string, unknown>;
  /** the handler's state */
  readonly s?: unknown;
}

const encoder = new TextEncoder();

/**
 * A WebCrypto HMAC key, named by its shape: published declarations must not need the DOM lib
 * (`CryptoKey` is not a global in Node's types).
 */
export interface StateKey {
  readonly type: string;
  readonly algorithm: { readonly name: string };
}

/** A keyring's key names: what a state carries in clear, so nothing that needs escaping. */
export const KEY_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The MRTR keyring: `signing` (the first key) signs every new state; every key verifies, so a
 * cluster rotating its key accepts the states of instances not yet rotated. Names are unique.
 */
export interface StateKeyring {
  readonly signing: string;
  readonly keys: ReadonlyMap<string, StateKey>;
}

/** A one-key ring with a fresh random key: right for one process, never for a cluster. */
export async function randomKeyring(): Promise<StateKeyring> {
  return importKeyring([{ name: 'random', secret: crypto.getRandomValues(new Uint8Array(32)) }]);
}

/** Imports validated entries (names unique, secrets long enough) in order: the first signs. */
export async function importKeyring(
  entries: readonly { name: string; secret: Uint8Array }[],
): Promise<StateKeyring> {
  const keys = new Map<string, StateKey>();
  for (const { name, secret } of entries) keys.set(name, await importKey(secret));
  return { signing: (entries[0] as { name: string }).name, keys };
}

function importKey(secret: Uint8Array): Promise<StateKey> {
  return crypto.subtle.importKey('raw', secret as BufferSource, { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
    'verify',
  ]);
}

export async function signState(ring: StateKeyring, payload: StatePayload): Promise<string> {
  const signed = `${ring.signing}.${base64url(encoder.encode(canonicalJson(payload)))}`;
  const key = ring.keys.get(ring.signing) as CryptoKey;
  const mac = await crypto.subtle.sign('HMAC', key, encoder.encode(signed) as BufferSource);
  return `${signed}.${base64url(new Uint8Array(mac))}`;
}

/** Returns the payload, or the reason the state is refused. */
export async function verifyState(
  ring: StateKeyring,
  state: unknown,
  expected: { method: string; digest: string; principal: string; now: number },
): Promise<StatePayload | string> {
  if (typeof state !== 'string' || state.length > 1_000_000)
    return 'requestState must be a string this server issued';
  const parts = state.split('.', 4);
  if (parts.length !== 3) return 'requestState is malformed';
  const [name, body, macText] = parts as [string, string, string];
  if (!KEY_NAME.test(name) || body === '') return 'requestState is malformed';
  const key = ring.keys.get(name);
  if (key === undefined) return `requestState was signed with key "${name}", which this server does not hold`;
  const mac = fromBase64url(macText);
  if (
    !mac ||
    !(await crypto.subtle.verify(
      'HMAC',
      key as CryptoKey,
      mac as BufferSource,
      encoder.encode(`${name}.${body}`) as BufferSource,
    ))
  ) {
    return 'requestState failed its integrity check';
  }
  const bytes = fromBase64url(body);
  let payload: StatePayload;
  try {
    payload = JSON.parse(new TextDecoder().decode(bytes ?? new Uint8Array())) as StatePayload;
  } catch {
    return 'requestState is malformed';
  }
  if (payload.v !== 1) return 'requestState has an unknown version';
  if (payload.e <= expected.now) return 'requestState has expired';
  if (payload.m !== expected.method)
    return `requestState was issued for ${payload.m}, not ${expected.method}`;
  if (payload.d !== expected.digest) return 'requestState was issued for different params';
  if (payload.p !== expected.principal) return 'requestState was issued to a different principal';
  return payload;
}

export async function digest(text: string): Promise<string> {
  const hash = await crypto.subtle.digest('SHA-256', encoder.encode(text) as BufferSource);
  return base64url(new Uint8Array(hash).subarray(0, 18));
}

/** The params of a request as they were first sent: without `_meta`, `inputResponses`, `requestState`. */
export function originalParams(params: Record<string, unknown>): Record<string, unknown> {
  const { _meta, inputResponses, requestState, ...rest } = params;
  return rest;
}

/** JSON with object keys sorted at every level, so equal values always give equal text. */
export function canonicalJson(value: unknown): string {
  if (JsonInt.is(value)) return value.literal;
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.keys(value)
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i] as number);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64url(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  try {
    const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
    const out = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
    return out;
  } catch {
    return undefined;
  }
}
