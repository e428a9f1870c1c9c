import { checkRequests, type InputRequest } from '../dispatch/input.js';
import type { Selection } from '../dispatch/select.js';
import type { StoredTask, TaskStore } from './store.js';
import { isTerminal } from './wire.js';

interface Wait {
  resolve(answer: Record<string, unknown>): void;
  reject(reason: unknown): void;
}

/**
 * A task this instance runs: what stops it, its input requests waiting for `tasks/update`, and its
 * status-message writes. The handler reaches it through its context once the call is a task.
 *
 *   ask({k: req}) ──► store: input_required, inputRequests[k'] ──► tasks/update (any instance)
 *        ▲                                                            │ inputResponses[k']
 *        └──────────── deliver(task) ◄── store change ◄───────────────┘
 *
 * Keys on the wire (k') are unique over the task's life (SEP-2663): a handler key asked again
 * gets a suffix, and the handler still sees its own key.
 */
export class RunningTask {
  /** Aborted by `tasks/cancel` (on any instance); the executor then stops the work. */
  readonly cancellation = new AbortController();
  /** Resolves with the stored task once created, or undefined when the store refused it. */
  created: Promise<StoredTask | undefined> = Promise.resolve(undefined);
  /** The task's work and its terminal write, settled. */
  done: Promise<void> = Promise.resolve();
  /** Set when the call was answered inline after all: the task is never shown and is dropped at its end. */
  orphan = false;
  readonly #waits = new Map<string, Wait>();
  readonly #issued = new Set<string>();
  /** Delivered keys to drop from the stored `inputResponses` with the next write. */
  readonly #taken = new Set<string>();
  #message: string | undefined;
  #writing = false;

  constructor(
    readonly taskId: string,
    private readonly store: TaskStore,
    private readonly selection: Selection,
    /** The handler's signal: aborted when the task is cancelled, times out or the server shuts down. */
    private readonly signal: AbortSignal,
  ) {
    signal.addEventListener('abort', () => this.#rejectWaits(signal.reason), { once: true });
  }

  /** The handler's `input` once the call is a task: waits for `tasks/update` to answer every request. */
  async ask(requests: Record<string, InputRequest>): Promise<Record<string, Record<string, unknown>>> {
    checkRequests(requests, this.selection.clientCapabilities, this.selection.dialect);
    if (this.signal.aborted) throw this.signal.reason;
    const keys: [key: string, wireKey: string][] = [];
    const asked: Record<string, InputRequest> = {};
    for (const [key, request] of Object.entries(requests)) {
      const wireKey = this.#unique(key);
      keys.push([key, wireKey]);
      asked[wireKey] =
        request.params === undefined
          ? { method: request.method }
          : { method: request.method, params: request.params };
    }
    // Waiting starts before the write: an answer may arrive (another instance) before it returns.
    const answers = Promise.all(
      keys.map(
        ([, wireKey]) =>
          new Promise<Record<string, unknown>>((resolve, reject) =>
            this.#waits.set(wireKey, { resolve, reject }),
          ),
      ),
    );
    answers.catch(() => undefined);
    const taken = [...this.#taken];
    this.#taken.clear();
    let stored: StoredTask | undefined;
    try {
      stored = await this.#writeRequests(asked, taken);
    } catch (error) {
      this.#rejectWaits(error);
      throw error;
    }
    if (stored === undefined || isTerminal(stored.status)) {
      this.#rejectWaits(new Error(`task ${this.taskId} ended while asking for input`));
    }
    const values = await answers;
    return Object.fromEntries(keys.map(([key], index) => [key, values[index] as Record<string, unknown>]));
  }

  #writeRequests(asked: Record<string, InputRequest>, taken: readonly string[]) {
    return this.store.update(this.taskId, (task) => {
      if (isTerminal(task.status)) return undefined;
      const responses = { ...task.inputResponses };
      for (const key of taken) delete responses[key];
      return {
        ...task,
        status: 'input_required',
        inputRequests: { ...task.inputRequests, ...asked },
        inputResponses: responses,
        lastUpdatedAt: Date.now(),
        revision: task.revision + 1,
      };
    });
  }

  /** Hands the handler the answers a stored change carries for the requests it waits on. */
  deliver(task: StoredTask): void {
    for (const [wireKey, answer] of Object.entries(task.inputResponses ?? {})) {
      const wait = this.#waits.get(wireKey);
      if (!wait) continue;
      this.#waits.delete(wireKey);
      this.#taken.add(wireKey);
      wait.resolve(answer);
    }
  }

  /** The handler's `progress` message once the call is a task: the task's `statusMessage`, latest wins. */
  setStatusMessage(message: string): void {
    this.#message = message;
    if (!this.#writing) void this.#flushMessage();
  }

  /** Rejects every input wait: the task ended. */
  end(reason: unknown): void {
    this.#rejectWaits(reason);
  }

  async #flushMessage(): Promise<void> {
    this.#writing = true;
    try {
      while (this.#message !== undefined) {
        const message = this.#message;
        this.#message = undefined;
        await this.store.update(this.taskId, (task) =>
          isTerminal(task.status) || task.statusMessage === message
            ? undefined
            : { ...task, statusMessage: message, lastUpdatedAt: Date.now(), revision: task.revision + 1 },
        );
      }
    } catch {
      // A lost status message is not worth failing the task for; the next one may get through.
    } finally {
      this.#writing = false;
    }
  }

  #unique(key: string): string {
    let wireKey = key;
    for (let n = 2; this.#issued.has(wireKey); n++) wireKey = `${key}#${n}`;
    this.#issued.add(wireKey);
    return wireKey;
  }

  #rejectWaits(reason: unknown): void {
    for (const wait of this.#waits.values()) wait.reject(reason);
    this.#waits.clear();
  }
}
