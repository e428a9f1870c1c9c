// The Tasks sections of the core and client READMEs, through the public types.
import { setTimeout as sleep } from 'node:timers/promises';
import { connect } from '@snodo/client';
import { createServer, createTaskManager, tool } from '@snodo/core';
import { listen } from '@snodo/transport-http';
import { z } from 'zod';

const tasks = createTaskManager({ maxRunningTasks: 8, resultTtlMs: 15 * 60_000 });
const runtime = createServer({
  name: 'reports',
  version: '1.0.0',
  tasks,
  tools: [
    tool({
      name: 'build_report',
      inputSchema: z.object({ quarter: z.string() }),
      task: 'auto', // becomes a task after taskAfterMs (1 s), or at once with context.runAsTask()
      handler: async ({ quarter }, context) => {
        for (let month = 1; month <= 3; month++) {
          // As a task the signal aborts on tasks/cancel, the task's deadline or tasks.close(), not on a disconnect.
          await sleep(2_000, undefined, { signal: context.signal });
          context.progress(month, 3, `${quarter}: month ${month} of 3 summed`); // the task's statusMessage
        }
        const answer = await context.elicit({
          message: `Publish the ${quarter} report?`,
          requestedSchema: { type: 'object', properties: { publish: { type: 'boolean' } } },
        });
        const { publish } = (answer.content ?? {}) as { publish?: boolean };
        return answer.action === 'accept' && publish === true ? 'published' : 'kept as a draft';
      },
    }),
  ],
});
const server = await listen({ runtime, port: 3000 });

// A client: `tasks: true` declares the extension, and callTool follows the task to its result.
const client = await connect(
  { http: server.url() },
  { tasks: true, onElicit: async () => ({ action: 'accept', content: { publish: true } }) },
);
const result = await client.callTool(
  'build_report',
  { quarter: 'Q3' },
  {
    onStatus: (task) => console.log(task.status, task.statusMessage ?? ''), // working …, input_required, completed
  },
);
console.log(result.content); // [{ type: 'text', text: 'published' }]
await client.close();
await server.close();
await tasks.close(); // running tasks are stopped and stored as failed ("the server shut down")

// @snodo/client's README: callTool following a task, and client.tasks.
{
  const remote = await connect(
    { http: 'http://127.0.0.1:3000/mcp' },
    { tasks: true, onElicit: async () => ({ action: 'accept', content: { publish: true } }) },
  );
  const controller = new AbortController();
  const report = await remote.callTool(
    'build_report',
    { quarter: 'Q3' },
    {
      signal: controller.signal, // aborting it sends tasks/cancel
      onStatus: (task) => console.log(task.status, task.statusMessage ?? ''),
    },
  );
  console.log(report.content);
  const started = await remote.tasks.start('build_report', { quarter: 'Q3' });
  if (started.task) {
    const { taskId } = started.task; // keep it; later, from any client of the same user:
    const task = await remote.tasks.get(taskId);
    if (task.status === 'input_required') {
      await remote.tasks.update(taskId, { elicit: { action: 'decline' } }); // keys of task.inputRequests
    }
    const result = await remote.tasks.follow(taskId, { signal: AbortSignal.timeout(600_000) });
    console.log(result.content);
  } else {
    console.log(started.result.content); // the server answered at once
  }
  await remote.close();
}
