interface Entry {
  readonly method: string;
  readonly param: string;
  readonly result: Record<string, unknown>;
  readonly expires: number;
}

/**
 * Results of the cacheable methods (discover, the four lists, resources/read), kept for their
 * `ttlMs` (absent, negative or zero: not kept). Key = scope + method + the result-affecting
 * param (cursor or uri). `public` entries are shared; `private` ones (and those without a scope)
 * are keyed by the authorization context in use, so two tokens never see each other's entries.
 * Insertion order is age: the oldest entry goes first when `maxEntries` is reached.
 */
export class ResultCache {
  readonly #entries = new Map<string, Entry>();

  constructor(
    private readonly maxEntries: number,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.#entries.size;
  }

  get(method: string, param: string, auth: string): Record<string, unknown> | undefined {
    const now = this.now();
    for (const key of [publicKey(method, param), privateKey(method, param, auth)]) {
      const entry = this.#entries.get(key);
      if (entry === undefined) continue;
      if (now < entry.expires) return entry.result;
      this.#entries.delete(key);
    }
    return undefined;
  }

  set(method: string, param: string, auth: string, result: Record<string, unknown>): void {
    const ttl = result.ttlMs;
    if (typeof ttl !== 'number' || !Number.isFinite(ttl) || ttl <= 0) return;
    const key = result.cacheScope === 'public' ? publicKey(method, param) : privateKey(method, param, auth);
    this.#entries.delete(key);
    this.#entries.set(key, { method, param, result, expires: this.now() + ttl });
    while (this.#entries.size > this.maxEntries) {
      const oldest = this.#entries.keys().next().value as string;
      this.#entries.delete(oldest);
    }
  }

  /** Drops every entry of `method` (a list-changed notification, an invalid cursor), or of `method` and `param`. */
  invalidate(method: string, param?: string): void {
    for (const [key, entry] of this.#entries) {
      if (entry.method === method && (param === undefined || entry.param === param))
        this.#entries.delete(key);
    }
  }

  clear(): void {
    this.#entries.clear();
  }
}

function publicKey(method: string, param: string): string {
  return `P\0${method}\0${param}`;
}

function privateKey(method: string, param: string, auth: string): string {
  return `p\0${auth}\0${method}\0${param}`;
}
