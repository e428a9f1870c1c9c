// The tools the conformance suite's `tasks-*` scenarios call (Tasks extension, SEP-2663).
import { ErrorCode, ProtocolError, type ToolDefinition, tool } from '@snodo/core';

/** Resolves after `ms`, or at once when `signal` aborts (then rejects with its reason). */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const done = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', done);
      resolve();
    }, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** The form every task elicitation of the fixture asks for: a name and a confirmation, both optional. */
const form = {
  type: 'object',
  properties: { name: { type: 'string' }, confirm: { type: 'boolean' } },
};

export function taskTools(): ToolDefinition[] {
  return [
    tool({
      name: 'greet',
      description: 'Never a task: says hello',
      inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      handler: ({ name }) => `Hello, ${name}!`,
    }),
    tool({
      name: 'slow_compute',
      description: 'A task when it takes time: sleeps `seconds`, then answers (seconds: 0 answers at once)',
      inputSchema: {
        type: 'object',
        properties: { seconds: { type: 'number', minimum: 0 }, label: { type: 'string' } },
        required: ['seconds'],
      },
      task: 'auto',
      handler: async ({ seconds, label }, context) => {
        if (seconds > 0) await context.runAsTask();
        await sleep(seconds * 1000, context.signal);
        return `Computed ${label ?? 'result'} after ${seconds} s`;
      },
    }),
    tool({
      name: 'failing_job',
      description: 'Always a task: fails as a tool (isError) after about a second',
      task: 'always',
      handler: async (_args, context) => {
        await sleep(1000, context.signal);
        throw new Error('The job failed');
      },
    }),
    tool({
      name: 'protocol_error_job',
      description: 'Always a task: fails with a JSON-RPC error',
      task: 'always',
      handler: () => {
        throw new ProtocolError(ErrorCode.InternalError, 'The job hit a protocol-level failure');
      },
    }),
    tool({
      name: 'confirm_delete',
      description: 'Always a task: asks for confirmation (elicitation) before deleting `filename`',
      inputSchema: { type: 'object', properties: { filename: { type: 'string' } } },
      task: 'always',
      handler: async ({ filename }, context) => {
        const answer = await context.elicit({
          message: `Delete ${filename}?`,
          requestedSchema: form,
        });
        const confirmed = answer.action === 'accept';
        return confirmed ? `Deleted ${filename}` : `Kept ${filename}`;
      },
    }),
    tool({
      name: 'multi_input',
      description: 'Always a task: asks two questions at once',
      task: 'always',
      handler: async (_args, context) => {
        const [first, second] = await Promise.all([
          context.elicit({ message: 'First?', requestedSchema: form }, { key: 'first' }),
          context.elicit({ message: 'Second?', requestedSchema: form }, { key: 'second' }),
        ]);
        return `Got ${JSON.stringify(first.content)} and ${JSON.stringify(second.content)}`;
      },
    }),
    tool({
      name: 'test_tool_with_task',
      description: 'Asks for a name by MRTR, then continues as a task that greets it',
      task: 'auto',
      handler: async (_args, context) => {
        const answer = await context.elicit(
          {
            message: 'What is your name?',
            requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
          },
          { key: 'user_name' },
        );
        await context.runAsTask();
        await sleep(100, context.signal);
        return `Hello, ${String((answer.content as { name?: unknown } | undefined)?.name)}!`;
      },
    }),
  ];
}
