import { EventEmitter, once } from 'node:events';
import { PassThrough, type Writable } from 'node:stream';
import { createServer, type Runtime, tool } from '@snodo/core';
import { z } from 'zod';
import { serve } from '../../src/index.js';
import type { ServeOptions } from '../../src/options.js';
import type { Message } from './child.js';

export { callTool, cancelled, isResponseTo, type Message, modern } from './child.js';

/**
 * A server whose `hold` tool blocks until the test releases it by key, so tests decide when
 * each request finishes (no timing involved). It records how many holds run at once.
 */
export class Gates extends EventEmitter {
  running = 0;
  maxRunning = 0;
  readonly started: string[] = [];
  readonly aborted: string[] = [];
  /** Release every hold as soon as it starts. */
  autoRelease = false;
  readonly #release = new Map<string, () => void>();

  readonly runtime: Runtime = createServer({
    name: 'gates',
    version: '1.0.0',
    tools: [
      tool({
        name: 'hold',
        inputSchema: z.object({ key: z.string(), ignoreSignal: z.boolean().optional() }),
        handler: async ({ key, ignoreSignal }, ctx) => {
          this.running++;
          this.maxRunning = Math.max(this.maxRunning, this.running);
          this.started.push(key);
          try {
            await new Promise<void>((resolve, reject) => {
              ctx.signal.addEventListener('abort', () => {
                this.aborted.push(key);
                this.emit('aborted', key);
                if (!ignoreSignal) reject(ctx.signal.reason);
              });
              this.#release.set(key, resolve);
              this.emit('started', key);
              if (this.autoRelease) resolve();
            });
          } finally {
            this.running--;
          }
          return `released ${key}`;
        },
      }),
      tool({
        name: 'progress',
        inputSchema: z.object({ key: z.string().optional() }),
        handler: async ({ key }, ctx) => {
          ctx.progress(1, 3);
          ctx.progress(2, 3);
          if (key !== undefined) {
            await new Promise<void>((resolve) => {
              this.#release.set(key, resolve);
              this.started.push(key);
              this.emit('started', key);
            });
          }
          ctx.progress(3, 3);
          return 'done';
        },
      }),
      tool({
        name: 'logs',
        handler: (_args, ctx) => {
          ctx.log('info', 'hello from logs');
          return 'logged';
        },
      }),
      tool({ name: 'echo', inputSchema: z.object({ text: z.string() }), handler: ({ text }) => text }),
    ],
  });

  release(key: string): void {
    const release = this.#release.get(key);
    if (release === undefined) throw new Error(`hold ${key} has not started`);
    this.#release.delete(key);
    release();
  }

  releaseAll(): void {
    for (const key of [...this.#release.keys()]) this.release(key);
  }

  /** Resolves once `key` started (at once if it already did). */
  async whenStarted(key: string): Promise<void> {
    while (!this.started.includes(key)) await once(this, 'started');
  }

  async whenRunning(count: number): Promise<void> {
    while (this.running < count) await once(this, 'started');
  }

  async whenAborted(key: string): Promise<void> {
    while (!this.aborted.includes(key)) await once(this, 'aborted');
  }
}

/** `serve` on in-memory streams, with every output line collected. */
export class Served {
  readonly input = new PassThrough();
  readonly output: Writable;
  readonly lines: string[] = [];
  readonly messages: Message[] = [];
  readonly done: Promise<void>;
  /** 'resolved' / 'rejected' once `done` settled, for ordering checks; undefined before. */
  settled: 'resolved' | 'rejected' | undefined;
  readonly #events = new EventEmitter();
  #partial = '';

  constructor(runtime: Runtime, options: ServeOptions = {}, output?: Writable) {
    const out = output ?? new PassThrough();
    this.output = out;
    if (output === undefined) {
      out.setDefaultEncoding('utf8');
      out.on('data', (chunk: Buffer) => this.#onOutput(chunk.toString('latin1')));
    }
    this.done = serve(runtime, { input: this.input, output: out, ...options });
    this.done.then(
      () => {
        this.settled = 'resolved';
      },
      () => {
        this.settled = 'rejected';
      },
    );
  }

  send(message: object | string): void {
    this.input.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`);
  }

  /** The first message (received or still to come) matching `match`. */
  async next(match: (message: Message) => boolean): Promise<Message> {
    for (;;) {
      const found = this.messages.find(match);
      if (found !== undefined) return found;
      await once(this.#events, 'message');
    }
  }

  async count(match: (message: Message) => boolean, count: number): Promise<Message[]> {
    for (;;) {
      const found = this.messages.filter(match);
      if (found.length >= count) return found;
      await once(this.#events, 'message');
    }
  }

  /** Ends the input and waits for `serve` to settle. */
  async end(): Promise<void> {
    this.input.end();
    await this.done;
  }

  #onOutput(text: string): void {
    const parts = (this.#partial + text).split('\n');
    this.#partial = parts.pop() ?? '';
    for (const line of parts) {
      this.lines.push(line);
      this.messages.push(JSON.parse(line));
      this.#events.emit('message');
    }
  }
}

export function hold(id: number | string, key: string, ignoreSignal?: boolean) {
  return {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: {
      name: 'hold',
      arguments: ignoreSignal === undefined ? { key } : { key, ignoreSignal },
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  };
}
