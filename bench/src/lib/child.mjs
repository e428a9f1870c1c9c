// Child processes: the servers under test, and the load generators that drive them. Every server
// child runs `node --expose-gc --import servers/control.mjs`, so ours and the peers answer the same
// memory/GC control messages; the runner never serves or loads from its own process, except the
// stdio scenario, where the runner is the client on the far side of a real pipe.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { cpuMsOf, memoryOf } from './proc.mjs';

const CONTROL = new URL('../servers/control.mjs', import.meta.url).href;
/** Longest wait for a server to report that it listens. */
const START_TIMEOUT = 20_000;
const TAIL_BYTES = 4096;

export class Unavailable extends Error {}

/**
 * Starts a server program. `stdio: true` gives a piped stdin/stdout (a stdio server); otherwise the
 * program must send `{ type: 'ready', url }` (servers/common.mjs `ready`). Resolves to a handle.
 */
export async function startServer({ program, args = [], stdio = false, execArgv = [], env, cwd, readyLine }) {
  const path = program instanceof URL ? fileURLToPath(program) : program;
  const child = fork(path, args, {
    execArgv: ['--expose-gc', '--import', CONTROL, ...execArgv],
    stdio: stdio ? ['pipe', 'pipe', 'pipe', 'ipc'] : ['ignore', 'ignore', 'pipe', 'ipc'],
    env: { ...process.env, ...env },
    cwd,
    serialization: 'json',
  });
  let stderr = '';
  const exited = once(child, 'exit');
  const handle = new ServerHandle(child, () => stderr, exited);
  let announced = false;
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (text) => {
    stderr = (stderr + text).slice(-TAIL_BYTES);
    // A program we do not write (snodo-proxy) says where it listens on stderr instead.
    const url = announced ? undefined : readyLine?.exec(stderr)?.[1];
    if (url !== undefined) {
      announced = true;
      child.emit('message', { type: 'ready', url });
    }
  });
  if (stdio) return handle;

  const message = await new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${path}: not ready after ${START_TIMEOUT} ms\n${stderr}`)),
      START_TIMEOUT,
    );
    const onMessage = (m) => {
      if (m?.type === 'ready' || m?.type === 'unavailable') {
        clearTimeout(timer);
        child.off('message', onMessage);
        resolve(m);
      }
    };
    child.on('message', onMessage);
    exited.then(([code, signal]) => {
      clearTimeout(timer);
      reject(new Error(`${path} exited (${code ?? signal}) before listening\n${stderr}`));
    });
  });
  if (message.type === 'unavailable') {
    handle.kill();
    throw new Unavailable(message.reason);
  }
  handle.url = message.url;
  return handle;
}

class ServerHandle {
  /** @type {string | undefined} */
  url;

  constructor(child, stderr, exited) {
    this.child = child;
    this.pid = child.pid;
    this.stderr = stderr;
    this.exited = exited;
  }

  /** RSS and peak RSS (VmHWM) from /proc, in bytes. */
  memory() {
    return memoryOf(this.pid);
  }

  cpuMs() {
    return cpuMsOf(this.pid);
  }

  /** Asks the child for process.memoryUsage(), after two forced GCs when `gc` is true. */
  async report({ gc = false } = {}) {
    this.child.send({ type: 'memory', gc });
    const [message] = await waitFor(this.child, (m) => m?.type === 'memory', 15_000);
    return message;
  }

  /**
   * `start` then `stop`: resolves `stop` with `{ bytes, gcs }`, the bytes the child allocated on its
   * JS heap in between (servers/control.mjs), or undefined where node has no v8.GCProfiler.
   */
  async allocation(action) {
    this.child.send({ type: 'allocation', action });
    const [message] = await waitFor(this.child, (m) => m?.type === 'allocation', 15_000);
    return message.bytes === undefined ? undefined : message;
  }

  kill() {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    return this.exited;
  }
}

/** Resolves with the first message matching `test`; rejects on exit or after `timeout` ms. */
export function waitFor(child, test, timeout) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => done(reject, new Error(`no answer from child ${child.pid} in ${timeout} ms`)),
      timeout,
    );
    const onMessage = (message) => {
      if (test(message)) done(resolve, [message]);
    };
    const onExit = (code, signal) => done(reject, new Error(`child ${child.pid} exited (${code ?? signal})`));
    const done = (settle, value) => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      settle(value);
    };
    child.on('message', onMessage);
    child.on('exit', onExit);
  });
}

/**
 * A load generator child (clients/*.mjs): `call(request)` sends one job and resolves with its
 * `{ type: 'result' }` answer (an `{ type: 'error' }` answer rejects).
 */
export class Worker {
  constructor(program) {
    this.child = fork(fileURLToPath(program), [], {
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      serialization: 'json',
    });
    this.exited = once(this.child, 'exit');
  }

  async call(job, timeout) {
    this.child.send(job);
    const [message] = await waitFor(this.child, (m) => m?.type === 'result' || m?.type === 'error', timeout);
    if (message.type === 'error') throw new Error(message.message);
    return message.result;
  }

  close() {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    return this.exited;
  }
}
