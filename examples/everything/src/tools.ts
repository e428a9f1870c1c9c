import { type ToolDefinition, tool } from '@snodo/core';
import { z } from 'zod';

/** Text with non-ASCII characters and an emoji; stdio writes it as \u escapes. */
export const UNICODE_TEXT = 'Grüße aus Köln — こんにちは, 世界! ½ € ✓ 🦄';

/** Sleep calls running right now in this process (the demo's own view of concurrency). */
let sleeping = 0;

export const echo = tool({
  name: 'echo',
  title: 'Echo',
  description: 'Returns its text unchanged',
  inputSchema: z.object({ text: z.string() }),
  handler: ({ text }) => text,
});

export const add = tool({
  name: 'add',
  title: 'Add',
  description: 'Adds two numbers',
  inputSchema: z.object({ a: z.number(), b: z.number() }),
  outputSchema: z.object({ sum: z.number() }),
  handler: ({ a, b }) => ({ content: [], structuredContent: { sum: a + b } }),
});

export const sleep = tool({
  name: 'sleep',
  title: 'Sleep',
  description:
    'Waits ms milliseconds unless cancelled, reporting progress every 100 ms when asked. ' +
    'Reports how many sleep calls were running when it started (itself included).',
  inputSchema: z.object({ ms: z.number().int().min(0).max(600_000) }),
  outputSchema: z.object({ sleptMs: z.number(), concurrent: z.number().int() }),
  handler: async ({ ms }, ctx) => {
    sleeping++;
    const concurrent = sleeping;
    try {
      await wait(ms, ctx.signal, ctx.canReportProgress ? (elapsed) => ctx.progress(elapsed, ms) : undefined);
    } finally {
      sleeping--;
    }
    return {
      content: [{ type: 'text', text: `slept ${ms} ms` }],
      structuredContent: { sleptMs: ms, concurrent },
    };
  },
});

export const fail = tool({
  name: 'fail',
  title: 'Fail',
  description: 'Always fails: the result has isError true',
  handler: () => {
    throw new Error('This tool always fails');
  },
});

export const unicode = tool({
  name: 'unicode',
  title: 'Unicode',
  description: 'Returns text with non-ASCII characters and an emoji',
  handler: () => UNICODE_TEXT,
});

/**
 * Writes its text through every console method that writes to stdout. Over stdio, `serve` sends
 * all of it to stderr (stdout carries protocol messages only); over HTTP it lands on stdout.
 */
export const consoleTool = tool({
  name: 'console',
  title: 'Console',
  description:
    'Logs its text with console.log, info, debug, dir, dirxml, table, count, group and timeEnd, then returns it',
  inputSchema: z.object({ text: z.string() }),
  handler: ({ text }) => {
    console.log(`log: ${text}`);
    console.info(`info: ${text}`);
    console.debug(`debug: ${text}`);
    console.dir({ dir: text });
    console.dirxml(`dirxml: ${text}`);
    console.table([{ table: text }]);
    console.count(`count: ${text}`);
    console.group(`group: ${text}`);
    console.log(`grouped: ${text}`);
    console.groupEnd();
    console.time(`time: ${text}`);
    console.timeEnd(`time: ${text}`);
    return text;
  },
});

/**
 * With tasks on (`--tasks`): always a task (Tasks extension), working for `ms` while its status
 * message says how far it got; stopped by `tasks/cancel`. Not in `TOOLS`: a server without a task
 * manager cannot serve an `always` tool.
 */
export const longJob = tool({
  name: 'long_job',
  title: 'Long job',
  description: 'Works ms milliseconds as a task: the client polls it with tasks/get, or cancels it',
  task: 'always',
  inputSchema: z.object({ ms: z.number().int().min(0).max(3_600_000) }),
  handler: async ({ ms }, ctx) => {
    await wait(ms, ctx.signal, (elapsed) => ctx.progress(elapsed, ms, `worked ${elapsed} of ${ms} ms`));
    return `worked ${ms} ms`;
  },
});

/** Every tool of the demo server, in one list; add new ones here. */
export const TOOLS: ToolDefinition[] = [echo, add, sleep, fail, unicode, consoleTool];

/** Resolves after `ms`, calling `tick(elapsed)` every 100 ms; rejects with the signal's reason when aborted. */
function wait(ms: number, signal: AbortSignal, tick?: (elapsed: number) => void): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const started = Date.now();
    const timer = setTimeout(done, ms);
    const ticker =
      tick && ms > 100 ? setInterval(() => tick(Math.min(Date.now() - started, ms)), 100) : undefined;
    signal.addEventListener('abort', onAbort, { once: true });
    function cleanup() {
      clearTimeout(timer);
      if (ticker !== undefined) clearInterval(ticker);
      signal.removeEventListener('abort', onAbort);
    }
    function done() {
      cleanup();
      resolve();
    }
    function onAbort() {
      cleanup();
      reject(signal.reason);
    }
  });
}
