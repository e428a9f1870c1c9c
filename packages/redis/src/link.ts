import { createHash } from 'node:crypto';
import { createClient, ErrorReply } from '@redis/client';
import { RedisError } from './errors.js';
import type { RedisConfig } from './options.js';

type Client = ReturnType<typeof createClient>;

/** What one connection is doing: `down` between a loss and the next successful reconnection. */
export type ConnectionState = 'connecting' | 'ready' | 'down' | 'closed';

export interface ConnectionHealth {
  readonly state: ConnectionState;
  /** When the connection was last lost (ms since epoch), while it is not back. */
  readonly downSince?: number;
  /** The last error the Redis client reported on this connection. */
  readonly lastError?: string;
  /** Round trip of the PING `health()` sent, in ms, when it was answered. */
  readonly pingMs?: number;
}

/** A Lua script run with EVALSHA, and with EVAL when Redis does not have it yet (after a restart). */
export interface Script {
  readonly source: string;
  readonly sha1: string;
}

export function script(source: string): Script {
  return { source, sha1: createHash('sha1').update(source).digest('hex') };
}

/**
 * One connection of the link: a node-redis client whose state follows its events. Commands are
 * never queued while it is down (`disableOfflineQueue`) and each is bounded by `commandTimeout`,
 * so a call fails at once or in bounded time, never hangs.
 */
class Connection {
  readonly client: Client;
  state: ConnectionState = 'connecting';
  downSince: number | undefined;
  lastError: string | undefined;
  /** Called when the connection is ready again after a loss, with when it was lost. */
  onResumed: ((since: number) => void) | undefined;

  constructor(config: RedisConfig) {
    this.client = createClient({
      url: config.url,
      disableOfflineQueue: true,
      commandOptions: { timeout: config.commandTimeout },
      socket: {
        connectTimeout: config.commandTimeout,
        reconnectStrategy: (retries: number) =>
          Math.min(50 * 2 ** Math.min(retries, 16), config.maxReconnectDelay),
      },
    });
    this.client.on('error', (error: unknown) => {
      this.lastError = error instanceof Error ? error.message : String(error);
      this.#lost();
    });
    this.client.on('reconnecting', () => this.#lost());
    this.client.on('ready', () => {
      const since = this.downSince;
      this.state = 'ready';
      this.downSince = undefined;
      if (since !== undefined) this.onResumed?.(since);
    });
  }

  #lost(): void {
    if (this.state === 'closed') return;
    if (this.state === 'ready') this.downSince = Date.now();
    // A connection that never was ready counts as lost from its first failure.
    else this.downSince ??= Date.now();
    this.state = 'down';
  }

  async close(): Promise<void> {
    if (this.state === 'closed') return;
    const graceful = this.state === 'ready';
    this.state = 'closed';
    if (graceful) await this.client.close().catch(() => this.client.destroy());
    else this.client.destroy();
  }

  health(pingMs?: number): ConnectionHealth {
    return {
      state: this.state,
      ...(this.downSince === undefined ? {} : { downSince: this.downSince }),
      ...(this.lastError === undefined ? {} : { lastError: this.lastError }),
      ...(pingMs === undefined ? {} : { pingMs }),
    };
  }
}

/**
 * The two connections every `@snodo/redis` feature shares: `commands` (the session store's
 * scripts, publishes) and `subscriber` (pub/sub, which takes a connection of its own). Channels
 * are routed by name, so another feature adds its channel with `subscribe` on the same
 * connection.
 *
 * The control channel (`control.ts`) rides the same two: each instance subscribes to
 * `${prefix}control:${instanceId}` with `subscribe`, records the sessions whose open work it holds
 * under `${prefix}owner:${sessionId}` through `eval`, and acknowledges on the sender's channel.
 */
export class RedisLink {
  readonly #config: RedisConfig;
  readonly #commands: Connection;
  readonly #subscriber: Connection;
  readonly #channels = new Map<string, (message: string) => void>();

  constructor(config: RedisConfig) {
    this.#config = config;
    this.#commands = new Connection(config);
    this.#subscriber = new Connection(config);
  }

  /** Connects both; rejects with `SNODO_ERR_REDIS_CONNECT` when they are not ready in `connectTimeout`. */
  async connect(): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const reason = this.#commands.lastError ?? this.#subscriber.lastError ?? 'no answer';
        reject(
          new RedisError(
            'SNODO_ERR_REDIS_CONNECT',
            `${redactedUrl(this.#config.url)} after ${this.#config.connectTimeout} ms (${reason})`,
          ),
        );
      }, this.#config.connectTimeout);
    });
    const both = Promise.all([this.#commands.client.connect(), this.#subscriber.client.connect()]);
    both.catch(() => undefined);
    try {
      await Promise.race([both, timeout]);
    } catch (error) {
      await this.close();
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Runs one command; a failure is a `RedisError` (`SNODO_ERR_REDIS_UNAVAILABLE` or `_COMMAND`). */
  async command<T>(args: readonly string[]): Promise<T> {
    if (this.#commands.state === 'closed') {
      throw new RedisError('SNODO_ERR_REDIS_CLOSED', `cannot send ${args[0]}`);
    }
    try {
      return (await this.#commands.client.sendCommand(args)) as T;
    } catch (error) {
      throw wrap(error, args[0] as string);
    }
  }

  /** Runs a script by its SHA-1, loading it with EVAL when Redis answers NOSCRIPT. */
  async eval<T>(code: Script, keys: readonly string[], args: readonly string[]): Promise<T> {
    const rest = [String(keys.length), ...keys, ...args];
    try {
      return await this.command<T>(['EVALSHA', code.sha1, ...rest]);
    } catch (error) {
      const noScript =
        error instanceof RedisError && (error.cause as Error | undefined)?.message?.startsWith('NOSCRIPT');
      if (!noScript) throw error;
      return this.command<T>(['EVAL', code.source, ...rest]);
    }
  }

  /** Publishes on a channel; resolves with the number of subscribers that received it. */
  publish(channel: string, message: string): Promise<number> {
    return this.command<number>(['PUBLISH', channel, message]);
  }

  /** Routes the messages of `channel` to `handler` (one handler per channel); resubscribed after a loss. */
  async subscribe(channel: string, handler: (message: string) => void): Promise<void> {
    const known = this.#channels.has(channel);
    this.#channels.set(channel, handler);
    if (known) return;
    try {
      await this.#subscriber.client.subscribe(channel, (message: string) =>
        this.#channels.get(channel)?.(message),
      );
    } catch (error) {
      throw wrap(error, 'SUBSCRIBE');
    }
  }

  /** Called each time the subscriber connection is back after a loss: what was published meanwhile is lost. */
  onSubscriberResumed(listener: (since: number) => void): void {
    this.#subscriber.onResumed = listener;
  }

  /** Both connections' state, with a PING on each that is ready (bounded by `commandTimeout`). */
  async health(): Promise<{ ok: boolean; commands: ConnectionHealth; subscriber: ConnectionHealth }> {
    const [commands, subscriber] = await Promise.all([ping(this.#commands), ping(this.#subscriber)]);
    return {
      ok: commands.pingMs !== undefined && subscriber.pingMs !== undefined,
      commands,
      subscriber,
    };
  }

  /** Closes both connections (gracefully when ready); idempotent. */
  async close(): Promise<void> {
    this.#channels.clear();
    await Promise.all([this.#commands.close(), this.#subscriber.close()]);
  }
}

async function ping(connection: Connection): Promise<ConnectionHealth> {
  if (connection.state !== 'ready') return connection.health();
  const started = performance.now();
  try {
    await connection.client.sendCommand(['PING']);
    return connection.health(Math.round((performance.now() - started) * 1000) / 1000);
  } catch (error) {
    connection.lastError = error instanceof Error ? error.message : String(error);
    return connection.health();
  }
}

function wrap(error: unknown, command: string): RedisError {
  if (error instanceof RedisError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof ErrorReply)
    return new RedisError('SNODO_ERR_REDIS_COMMAND', `${command}: ${message}`, error);
  return new RedisError('SNODO_ERR_REDIS_UNAVAILABLE', `${command}: ${message}`, error);
}

/** The URL without its password, for error messages. */
function redactedUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.password !== '') parsed.password = '***';
  return parsed.toString();
}
