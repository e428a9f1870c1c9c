import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { EventEmitter, once } from 'node:events';

/**
 * A child process (`node <args>`) whose stdout and stderr are kept whole, as text, for tests about
 * what goes where: unlike `DemoChild`, stdout may hold lines that are not JSON. Waits are on text
 * arriving or the process closing, never on a duration.
 */
export class Recorded {
  readonly process: ChildProcessWithoutNullStreams;
  stdout = '';
  stderr = '';
  /** The exit code, once the process exited and both streams were read to their end. */
  readonly closed: Promise<number | null>;
  readonly #events = new EventEmitter();
  #done = false;

  constructor(args: string[]) {
    this.process = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    for (const name of ['stdout', 'stderr'] as const) {
      this.process[name].setEncoding('utf8');
      this.process[name].on('data', (text: string) => {
        this[name] += text;
        this.#events.emit('data');
      });
    }
    this.process.stdin.on('error', () => {});
    this.closed = once(this.process, 'close').then(([code]) => {
      this.#done = true;
      this.#events.emit('data');
      return code as number | null;
    });
  }

  /** Writes one message and its newline. */
  send(message: object): void {
    this.process.stdin.write(`${JSON.stringify(message)}\n`);
  }

  /** Resolves once `stream` contains `text`; rejects if the process closes first. */
  async until(stream: 'stdout' | 'stderr', text: string): Promise<void> {
    while (!this[stream].includes(text)) {
      if (this.#done)
        throw new Error(`closed before ${stream} had ${JSON.stringify(text)}:\n${this[stream]}`);
      await once(this.#events, 'data');
    }
  }

  /** Closes stdin (EOF) and resolves with the exit code once all output was read. */
  end(): Promise<number | null> {
    this.process.stdin.end();
    return this.closed;
  }

  /** stdout's lines, without their newlines. */
  stdoutLines(): string[] {
    return this.stdout.split('\n').filter((line) => line !== '');
  }

  kill(): void {
    if (this.process.exitCode === null && this.process.signalCode === null) this.process.kill('SIGKILL');
  }
}

/** True for a line that is one JSON-RPC message. */
export function isProtocolLine(line: string): boolean {
  try {
    const message = JSON.parse(line);
    return typeof message === 'object' && message !== null && message.jsonrpc === '2.0';
  } catch {
    return false;
  }
}
