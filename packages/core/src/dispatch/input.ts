import type { Dialect } from '../dialects/dialect.js';
import { branded, brandedInstance, isBranded } from '../errors/brand.js';
import { ErrorCode } from '../errors/codes.js';
import { ProtocolError } from '../errors/protocol-error.js';
import type { RequestId } from '../json/int.js';
import type { ClientCapabilities } from '../protocol/types.js';

/** One thing a handler asks the client for (an MRTR input request, or a server-initiated request). */
export interface InputRequest {
  method: 'elicitation/create' | 'sampling/createMessage' | 'roots/list';
  params?: Record<string, unknown>;
}

/**
 * How a transport carries server-initiated requests on the initialize-based revisions. The
 * transport sends the request to the client and resolves with the client's result as it came (it
 * is checked before the handler sees it), or rejects with its error. Transports that cannot carry
 * them pass no channel.
 */
export interface ClientRequestChannel {
  request(
    method: string,
    params: Record<string, unknown> | undefined,
    /** `relatedRequestId`: the client request being handled; none for a request outside any (see `ClientNotification.request`). */
    options: { signal: AbortSignal; relatedRequestId?: RequestId | undefined },
  ): Promise<unknown>;
}

/** Thrown inside a handler to end this round with `resultType: "input_required"` (2026-07-28). */
export class InputRequiredSignal {
  constructor(
    readonly requests: Record<string, InputRequest>,
    readonly state: unknown,
  ) {}
}

const CLIENT_REQUEST_BRAND = Symbol.for('snodo.ClientRequestError');

/**
 * An error answer from the client to a server-initiated request; a tool turns it into `isError`.
 * Branded: `is` and `instanceof` hold for one made by another loaded copy of core.
 */
export class ClientRequestError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'ClientRequestError';
  }

  static is(value: unknown): value is ClientRequestError {
    return isBranded(value, CLIENT_REQUEST_BRAND);
  }

  /** `instanceof` reads the brand: a subclass checks its own, an unbranded subclass its prototype chain. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class `instanceof` asks about (a subclass too)
    return brandedInstance(this, value);
  }

  static {
    branded(ClientRequestError, CLIENT_REQUEST_BRAND);
  }
}

/** The capabilities an input request needs that `declared` lacks, or undefined when none are missing. */
export function missingCapability(
  request: InputRequest,
  declared: ClientCapabilities,
): Record<string, unknown> | undefined {
  switch (request.method) {
    case 'elicitation/create': {
      const elicitation = declared.elicitation;
      const mode = request.params?.mode === 'url' ? 'url' : 'form';
      if (elicitation === undefined || elicitation === null)
        return { elicitation: mode === 'url' ? { url: {} } : {} };
      const hasForm = 'form' in elicitation;
      const hasUrl = 'url' in elicitation;
      if (mode === 'url' && !hasUrl) return { elicitation: { url: {} } };
      // `{}` declares form mode only.
      if (mode === 'form' && hasUrl && !hasForm) return { elicitation: { form: {} } };
      return undefined;
    }
    case 'sampling/createMessage':
      return declared.sampling === undefined ? { sampling: {} } : undefined;
    case 'roots/list':
      return declared.roots === undefined ? { roots: {} } : undefined;
    default:
      throw new ProtocolError(
        ErrorCode.InternalError,
        `Unknown input request method: ${String((request as InputRequest).method)}`,
      );
  }
}

/**
 * Refuses input requests the client did not declare the capability for, or (-32021 too) that the
 * revision does not have at all, whatever was declared (2025-03-26 has no elicitation).
 */
export function checkRequests(
  requests: Record<string, InputRequest>,
  declared: ClientCapabilities,
  dialect: Pick<Dialect, 'version' | 'inputMethods'>,
): void {
  if (typeof requests !== 'object' || requests === null || Object.keys(requests).length === 0) {
    throw new TypeError('input() needs at least one request');
  }
  for (const request of Object.values(requests)) {
    const missing = missingCapability(request, declared);
    if (missing) throw ProtocolError.missingCapability(missing);
    if (!dialect.inputMethods.has(request.method)) {
      throw new ProtocolError(
        ErrorCode.MissingRequiredClientCapability,
        `${request.method} does not exist in protocol revision ${dialect.version}`,
        { method: request.method, protocolVersion: dialect.version },
      );
    }
  }
}
