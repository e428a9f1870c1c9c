import { type ChangeEvent, type ChangeHub, createChangeHub } from '@snodo/core';
import { RedisError } from './errors.js';
import type { RedisLink } from './link.js';
import type { RedisConfig } from './options.js';

/** Counters of the change fan-out since `connectRedis`. */
export interface ChangeStats {
  /** Changes this instance published to the others. */
  readonly published: number;
  /** Changes this instance could not publish (Redis down or slow): the other instances missed them. */
  readonly publishFailed: number;
  /** Changes received from other instances and delivered here. */
  readonly received: number;
  /** Messages on the channel that were not a change (malformed, or over `maxMessageBytes`): ignored. */
  readonly ignored: number;
  /** Times the subscriber connection came back after a loss: what was published meanwhile was missed. */
  readonly gaps: number;
  /** The last such gap (ms since epoch). */
  readonly lastGap?: { readonly from: number; readonly to: number };
}

/** One change on the wire: the publishing instance, the type, the URI of an `updated`. */
interface ChangeMessage {
  readonly o: string;
  readonly t: ChangeEvent['type'];
  readonly u?: string;
}

const TYPES: ReadonlySet<string> = new Set(['tools', 'prompts', 'resources', 'updated']);

/**
 * A core `ChangeHub` whose notifications reach every instance. The least intrusive shape: a local
 * hub (core's) feeds this instance's subscribers, and Redis pub/sub carries each change to the
 * others.
 *
 *   notify*() ──► local hub ──► this instance's subscribers      (synchronously, as core's hub)
 *             └─► PUBLISH {o: instanceId, …} ──► Redis ──► every instance's subscriber connection
 *                                                           ├─ o === own id: dropped (delivered above)
 *                                                           └─ otherwise:    local hub ──► subscribers
 *
 * So each change is delivered once on each instance, the publisher's own without a round trip and
 * even while Redis is down. Redis pub/sub is at most once: a change published while an instance's
 * subscriber connection is lost never reaches it; when the connection is back, the hub counts a gap
 * and tells its subscribers that every list may have changed (tools, prompts, resources
 * `list_changed`, which clients answer by listing again). A lost `updated` for one URI cannot be
 * replayed and is not.
 */
export class RedisChangeHub implements ChangeHub {
  readonly #local = createChangeHub();
  readonly #link: RedisLink;
  readonly #channel: string;
  readonly #instanceId: string;
  readonly #maxBytes: number;
  #stats: { -readonly [K in keyof ChangeStats]: ChangeStats[K] } = {
    published: 0,
    publishFailed: 0,
    received: 0,
    ignored: 0,
    gaps: 0,
  };
  /** The last publish failure, for `health()`. */
  lastError: string | undefined;

  constructor(link: RedisLink, config: RedisConfig, instanceId: string) {
    this.#link = link;
    this.#channel = `${config.prefix}changes`;
    this.#instanceId = instanceId;
    this.#maxBytes = config.maxMessageBytes;
  }

  /** Subscribes to the channel (once, before serving) and watches the subscriber connection for gaps. */
  async start(): Promise<void> {
    this.#link.onSubscriberResumed((since) => {
      this.#stats.gaps++;
      this.#stats.lastGap = { from: since, to: Date.now() };
      this.#local.notifyToolsChanged();
      this.#local.notifyPromptsChanged();
      this.#local.notifyResourcesChanged();
    });
    await this.#link.subscribe(this.#channel, (text) => this.#receive(text));
  }

  notifyToolsChanged(): void {
    this.#notify({ type: 'tools' });
  }

  notifyPromptsChanged(): void {
    this.#notify({ type: 'prompts' });
  }

  notifyResourcesChanged(): void {
    this.#notify({ type: 'resources' });
  }

  notifyResourceUpdated(uri: string): void {
    if (typeof uri !== 'string') throw new TypeError('notifyResourceUpdated needs a URI string');
    this.#notify({ type: 'updated', uri });
  }

  subscribe(listener: (event: ChangeEvent) => void): () => void {
    return this.#local.subscribe(listener);
  }

  get size(): number {
    return this.#local.size;
  }

  get stats(): ChangeStats {
    return { ...this.#stats };
  }

  #notify(event: ChangeEvent): void {
    const message: ChangeMessage =
      event.type === 'updated'
        ? { o: this.#instanceId, t: 'updated', u: event.uri }
        : { o: this.#instanceId, t: event.type };
    const text = JSON.stringify(message);
    const bytes = Buffer.byteLength(text);
    // Refused before any delivery, so no instance sees a change the others cannot.
    if (bytes > this.#maxBytes) {
      throw new RedisError(
        'SNODO_ERR_REDIS_MESSAGE_TOO_LARGE',
        `${bytes} bytes, maxMessageBytes is ${this.#maxBytes}`,
      );
    }
    deliver(this.#local, event);
    this.#link.publish(this.#channel, text).then(
      () => {
        this.#stats.published++;
      },
      (error: unknown) => {
        this.#stats.publishFailed++;
        this.lastError = error instanceof Error ? error.message : String(error);
      },
    );
  }

  #receive(text: string): void {
    const message = text.length > this.#maxBytes ? undefined : parse(text, this.#maxBytes);
    if (message === undefined) {
      this.#stats.ignored++;
      return;
    }
    if (message.o === this.#instanceId) return;
    this.#stats.received++;
    deliver(
      this.#local,
      message.t === 'updated' ? { type: 'updated', uri: message.u as string } : { type: message.t },
    );
  }
}

function deliver(hub: ChangeHub, event: ChangeEvent): void {
  if (event.type === 'tools') hub.notifyToolsChanged();
  else if (event.type === 'prompts') hub.notifyPromptsChanged();
  else if (event.type === 'resources') hub.notifyResourcesChanged();
  else hub.notifyResourceUpdated(event.uri);
}

/** A change message, or undefined for anything else (never throws). */
function parse(text: string, maxBytes: number): ChangeMessage | undefined {
  if (Buffer.byteLength(text) > maxBytes) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { o, t, u } = value as Record<string, unknown>;
  if (typeof o !== 'string' || typeof t !== 'string' || !TYPES.has(t)) return undefined;
  if (t === 'updated' ? typeof u !== 'string' : u !== undefined) return undefined;
  return value as ChangeMessage;
}
