import { createServer, tool } from '@snodo/core';
import { serve } from '@snodo/transport-stdio';
import { z } from 'zod';

const runtime = createServer({
  name: 'notes',
  version: '1.0.0',
  tools: [
    tool({
      name: 'echo',
      inputSchema: z.object({ text: z.string() }),
      handler: ({ text }) => {
        console.log('echo', text); // on stderr while serving: stdout is the protocol's
        return text;
      },
    }),
  ],
});

serve(runtime, { maxConcurrency: 16 }).catch((error) => {
  console.error(error.code, error.message);
  process.exit(1);
});
