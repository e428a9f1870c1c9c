import { JsonInt } from '../json/int.js';

/**
 * MRTR `requestState`, integrity-protected: `base64url(payload) "." base64url(HMAC-SHA-256(key, payload))`.
 * The payload binds the state to the method, a digest of the original params (without `_meta`,
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

export function randomKey(): Promise<StateKey> {
  const secret = crypto.getRandomValues(new Uint8Array(32));
  return importKey(secret);
}

export function importKey(secret: Uint8Array): Promise<StateKey> {
  return crypto.subtle.importKey('raw', secret as BufferSource, { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
    'verify',
  ]);
}

export async function signState(key: StateKey, payload: StatePayload): Promise<string> {
  const body = base64url(encoder.encode(canonicalJson(payload)));
  const mac = await crypto.subtle.sign('HMAC', key as CryptoKey, encoder.encode(body) as BufferSource);
  return `${body}.${base64url(new Uint8Array(mac))}`;
}

/** Returns the payload, or the reason the state is refused. */
export async function verifyState(
  key: StateKey,
  state: unknown,
  expected: { method: string; digest: string; principal: string; now: number },
): Promise<StatePayload | string> {
  if (typeof state !== 'string' || state.length > 1_000_000)
    return 'requestState must be a string this server issued';
  const dot = state.indexOf('.');
  if (dot <= 0) return 'requestState is malformed';
  const body = state.slice(0, dot);
  const mac = fromBase64url(state.slice(dot + 1));
  if (
    !mac ||
    !(await crypto.subtle.verify(
      'HMAC',
      key as CryptoKey,
      mac as BufferSource,
      encoder.encode(body) as BufferSource,
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
