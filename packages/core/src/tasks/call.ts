import type { HandlerContext } from '../dispatch/context.js';
import { inputMethods } from '../dispatch/handler-context.js';
import type { OperationCall } from '../dispatch/operation.js';
import { ErrorCode } from '../errors/codes.js';
import { ProtocolError } from '../errors/protocol-error.js';
import type { CallToolResult } from '../protocol/types.js';
import { declaresExtension } from '../router/extension.js';
import type { Tool } from '../router/tool.js';
import type { TaskManager } from './manager.js';
import type { RunningTask } from './running.js';
import type { StoredTask } from './store.js';
import { createTaskResult, TASKS_EXTENSION } from './wire.js';

/** Whether this request may be answered with a task: 2026-07-28, and it declared the extension. */
export function canUseTasks(call: OperationCall): boolean {
  return (
    call.selection.dialect.era === 'modern' &&
    declaresExtension(call.selection.clientCapabilities, TASKS_EXTENSION)
  );
}

/**
 * What becomes of the handler's result when the call turned into a task before the handler ended
 * (the task's result); default: the result itself. The proxy's hook follows a backend's task
 * handle that arrived as the proxy's own task was being created.
 */
export type AsTaskResult = (result: CallToolResult, context: HandlerContext) => Promise<CallToolResult>;

/**
 * A `tools/call` of a tool with `task: 'auto'` or `'always'`. For a client that cannot use tasks it
 * is an ordinary call (`always`: refused with -32021 before this). Otherwise:
 * - `always`: the task is created first and the handler runs as it from its first line;
 * - `auto`: the handler starts as an ordinary call (its input is MRTR, its signal the request's)
 *   and the call becomes a task when the handler calls `runAsTask()` or is still running after
 *   `taskAfterMs`. If every task slot is busy it stays an ordinary call. If the handler ends while
 *   its task is being stored, the client gets the ordinary answer and the task is never shown.
 */
export function callToolAsTask(
  manager: TaskManager,
  call: OperationCall,
  tool: Pick<Tool, 'task' | 'taskAfterMs'>,
  run: (context: HandlerContext) => Promise<CallToolResult>,
  asTask?: AsTaskResult,
): Promise<Record<string, unknown>> {
  if (!canUseTasks(call)) return run(call.context);
  const taskable = new TaskableCall(manager, call, run, asTask);
  return tool.task === 'always'
    ? taskable.startAsTask()
    : taskable.runUntilTask(tool.taskAfterMs ?? manager.taskAfterMs);
}

class TaskableCall {
  /** The handler's signal: the request's until the call is a task, then the task's. */
  readonly #controller = new AbortController();
  readonly #unlink: () => void;
  readonly context: HandlerContext;
  #running: RunningTask | undefined;
  /** Answers the request with the task handle; false when the handler already answered it. */
  #answerWithTask: ((task: StoredTask) => boolean) | undefined;
  #answered = false;
  #promotion: Promise<void> | undefined;
  #handler: Promise<CallToolResult> | undefined;

  constructor(
    private readonly manager: TaskManager,
    private readonly call: OperationCall,
    private readonly run: (context: HandlerContext) => Promise<CallToolResult>,
    private readonly asTask: AsTaskResult | undefined,
  ) {
    const base = call.context;
    const follow = () => this.#controller.abort(base.signal.reason);
    if (base.signal.aborted) follow();
    else base.signal.addEventListener('abort', follow, { once: true });
    this.#unlink = () => base.signal.removeEventListener('abort', follow);
    const self = this;
    this.context = {
      signal: this.#controller.signal,
      requestId: base.requestId,
      method: base.method,
      protocolVersion: base.protocolVersion,
      clientCapabilities: base.clientCapabilities,
      clientInfo: base.clientInfo,
      auth: base.auth,
      url: base.url,
      canReportProgress: base.canReportProgress,
      state: base.state,
      get taskId() {
        return self.#running?.taskId;
      },
      progress(progress, total, message) {
        if (!self.#running) base.progress(progress, total, message);
        else if (message !== undefined) self.#running.setStatusMessage(message);
      },
      // Messages and progress notifications are not sent for tasks (SEP-2663).
      log: (level, data, logger) => (self.#running ? undefined : base.log(level, data, logger)),
      ...inputMethods((requests, options) =>
        self.#running ? self.#running.ask(requests) : base.input(requests, options),
      ),
      retryLater(state) {
        if (self.#running) {
          throw new ProtocolError(
            ErrorCode.InternalError,
            'retryLater is not available once the call is a task',
          );
        }
        return base.retryLater(state);
      },
      runAsTask: () => this.#promote(),
    };
  }

  /** `always`: stores the task, then runs the handler as it. */
  async startAsTask(): Promise<Record<string, unknown>> {
    const running = this.#begin(() => this.run(this.context));
    if (!running) {
      throw new ProtocolError(ErrorCode.ServerOverloaded, 'Too many running tasks: try again later');
    }
    const task = await running.created;
    if (!task) throw new ProtocolError(ErrorCode.ServerOverloaded, 'Too many tasks: try again later');
    return createTaskResult(task);
  }

  /**
   * `auto`: runs the handler as an ordinary call until it ends or becomes a task. Exactly one of the
   * two answers the request: whichever comes first.
   */
  runUntilTask(afterMs: number): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => void this.#promote(), afterMs);
      const answer = (send: () => void): boolean => {
        if (this.#answered) return false;
        this.#answered = true;
        clearTimeout(timer);
        send();
        return true;
      };
      this.#answerWithTask = (task) => answer(() => resolve(createTaskResult(task)));
      const handler = this.run(this.context);
      this.#handler = handler;
      handler.then(
        (result) => answer(() => resolve(result)),
        (error) => answer(() => reject(error)),
      );
    });
  }

  /** Makes the running call a task, once; resolves when decided (nothing changes if it cannot). */
  #promote(): Promise<void> {
    this.#promotion ??= (async () => {
      await undefined; // a handler may call runAsTask() before its first await: let run() return first
      const handler = this.#handler;
      if (this.#answered || handler === undefined) return;
      const { asTask } = this;
      // Then-callbacks run in order: the request's answer (registered first) has decided before
      // `asTask` sees the result, so `#running` says whether the task won.
      const running = this.#begin(() =>
        asTask ? handler.then((result) => (this.#running ? asTask(result, this.context) : result)) : handler,
      );
      if (!running) return;
      const task = await running.created;
      if (!task) return;
      if (!this.#answerWithTask?.(task)) {
        // The handler answered while the task was being stored: nobody will ever see this task.
        this.manager.discard(running);
        return;
      }
      // From here the handler is the task's: its input, its signal, its progress messages.
      this.#running = running;
      this.#unlink();
    })();
    return this.#promotion;
  }

  #begin(work: () => Promise<CallToolResult>): RunningTask | undefined {
    const running = this.manager.begin({
      auth: this.call.auth,
      selection: this.call.selection,
      controller: this.#controller,
      work,
    });
    if (running && this.#handler === undefined) {
      // `always`: the handler starts as the task.
      this.#running = running;
      this.#unlink();
    }
    return running;
  }
}
