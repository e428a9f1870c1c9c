import { ProtocolError, type RequestId } from '@snodo/core';
import type { Route } from './sessions.js';

/** A server-initiated request of the backend, waiting for the frontend's answer. */
export interface PendingInput {
  /** The key the frontend sees (`elicit-1`, `sample-2`, …): unique within the exchange. */
  readonly key: string;
  readonly method: 'elicitation/create' | 'sampling/createMessage' | 'roots/list';
  readonly params: Record<string, unknown>;
}

interface Waiting extends PendingInput {
  resolve(result: Record<string, unknown>): void;
  reject(error: unknown): void;
}

export type ExchangeEvent =
  | { readonly type: 'done'; readonly result: Record<string, unknown> }
  | { readonly type: 'failed'; readonly error: unknown }
  | { readonly type: 'input'; readonly input: PendingInput };

const SHORT = {
  'elicitation/create': 'elicit',
  'sampling/createMessage': 'sample',
  'roots/list': 'roots',
} as const;

/**
 * One call forwarded to an initialize-based backend, which may send server-initiated requests
 * (elicitation, sampling, roots) while it runs. Whoever drives the exchange (the frontend
 * request, round after round on 2026-07-28) takes its events one at a time:
 *
 *   backend request ──ask()──► inputs [ i1 … ik ] ──next()──► driver ──answer()/refuse()──► backend
 *   backend result / failure ──────────────────────next()──► done | failed (after the inputs)
 *
 * Each input is handed out once (`next` marks it taken) and stays pending until answered.
 */
export class Exchange {
  readonly controller = new AbortController();
  readonly #inputs: Waiting[] = [];
  #taken = 0;
  #outcome: ExchangeEvent | undefined;
  #wake: (() => void) | undefined;
  #asked = 0;
  /** Where the backend call runs (the shared client, or the caller's own session), once sent. */
  route: Route | undefined = undefined;
  /** Ids of the requests the backend call sent (a retry sends another). */
  readonly #requestIds = new Set<string>();
  /** Progress of the backend call goes to the round that drives the exchange now. */
  onProgress: ((progress: { progress: number; total?: number; message?: string }) => void) | undefined;

  /** Resolves when the backend call has ended, whatever its outcome. */
  readonly finished: Promise<void>;

  constructor(start: (exchange: Exchange) => Promise<Record<string, unknown>>) {
    this.finished = start(this).then(
      (result) => this.#settle({ type: 'done', result }),
      (error: unknown) => this.#settle({ type: 'failed', error }),
    );
  }

  get settled(): boolean {
    return this.#outcome !== undefined;
  }

  /** Records the id of a request the backend call sent. */
  sent(id: RequestId): void {
    this.#requestIds.add(String(id));
  }

  /** Whether the backend call sent the request with this id. */
  owns(id: RequestId): boolean {
    return this.#requestIds.has(String(id));
  }

  #settle(outcome: ExchangeEvent): void {
    this.#outcome = outcome;
    for (const input of this.#inputs.splice(0)) {
      input.reject(new ProtocolError(-32603, 'The request that asked for this input has ended'));
    }
    this.#taken = 0;
    this.#poke();
  }

  #poke(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  /** Called for the backend's server-initiated request; resolves with the frontend's answer. */
  ask(
    method: PendingInput['method'],
    params: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>> {
    if (this.#outcome) return Promise.reject(new ProtocolError(-32603, 'The request has ended'));
    return new Promise((resolve, reject) => {
      const waiting: Waiting = { key: `${SHORT[method]}-${++this.#asked}`, method, params, resolve, reject };
      const onAbort = () => {
        const at = this.#inputs.indexOf(waiting);
        if (at >= 0) {
          this.#inputs.splice(at, 1);
          if (at < this.#taken) this.#taken--;
        }
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      waiting.resolve = (result) => {
        signal.removeEventListener('abort', onAbort);
        resolve(result);
      };
      waiting.reject = (error) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      };
      this.#inputs.push(waiting);
      this.#poke();
    });
  }

  /** The next event: an input not handed out yet, else the outcome; waits for one. Aborts with `signal`. */
  async next(signal: AbortSignal): Promise<ExchangeEvent> {
    for (;;) {
      if (this.#taken < this.#inputs.length) {
        const input = this.#inputs[this.#taken++] as Waiting;
        return { type: 'input', input: { key: input.key, method: input.method, params: input.params } };
      }
      if (this.#outcome) return this.#outcome;
      if (signal.aborted) throw signal.reason;
      await new Promise<void>((resolve) => {
        const onAbort = () => resolve();
        signal.addEventListener('abort', onAbort, { once: true });
        this.#wake = () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        };
      });
    }
  }

  #take(key: string): Waiting | undefined {
    const at = this.#inputs.findIndex((input) => input.key === key);
    if (at < 0) return undefined;
    const [input] = this.#inputs.splice(at, 1);
    if (at < this.#taken) this.#taken--;
    return input;
  }

  /** Answers the backend's request `key` (unknown keys are ignored: it was withdrawn or the call ended). */
  answer(key: string, result: Record<string, unknown>): void {
    this.#take(key)?.resolve(result);
  }

  /** Fails the backend's request `key` with `error` (the backend sees a JSON-RPC error). */
  refuse(key: string, error: unknown): void {
    this.#take(key)?.reject(error);
  }

  /** Ends the exchange: pending inputs are refused, the backend call is cancelled. */
  abort(reason: unknown): void {
    for (const input of this.#inputs.splice(0)) {
      // A frontend that never answered an elicitation is the user dismissing it.
      if (input.method === 'elicitation/create') input.resolve({ action: 'cancel' });
      else input.reject(new ProtocolError(-32603, 'The frontend did not answer'));
    }
    this.#taken = 0;
    this.controller.abort(reason);
  }
}

/**
 * Exchanges waiting between two rounds of a 2026-07-28 frontend (it got `input_required` and will
 * retry with the answer). Bounded: `max` parked at most; each for `timeoutMs`, then aborted.
 */
export class ParkedExchanges {
  readonly #entries = new Map<string, { exchange: Exchange; timer: ReturnType<typeof setTimeout> }>();

  constructor(
    private readonly max: number,
    private readonly timeoutMs: number,
  ) {}

  get size(): number {
    return this.#entries.size;
  }

  /** Parks `exchange` under `id`; false when full. */
  park(id: string, exchange: Exchange): boolean {
    if (!this.#entries.has(id) && this.#entries.size >= this.max) return false;
    const existing = this.#entries.get(id);
    if (existing) clearTimeout(existing.timer);
    const timer = setTimeout(() => {
      this.#entries.delete(id);
      exchange.abort(new ProtocolError(-32001, 'The frontend did not answer the input request in time'));
    }, this.timeoutMs);
    timer.unref?.();
    this.#entries.set(id, { exchange, timer });
    return true;
  }

  /** Takes the exchange parked under `id`, if it is still there. */
  take(id: string): Exchange | undefined {
    const entry = this.#entries.get(id);
    if (!entry) return undefined;
    clearTimeout(entry.timer);
    this.#entries.delete(id);
    return entry.exchange;
  }

  /** Aborts every parked exchange (the proxy closes). */
  clear(reason: unknown): void {
    for (const { exchange, timer } of this.#entries.values()) {
      clearTimeout(timer);
      exchange.abort(reason);
    }
    this.#entries.clear();
  }
}
