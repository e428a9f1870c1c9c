import { createProxy } from '@snodo/proxy';
import { listen } from '@snodo/transport-http';

const proxy = await createProxy({
  backends: [
    { id: 'files', target: { stdio: { command: 'node', args: ['files-server.js'] } } },
    { id: 'search', target: { http: 'http://127.0.0.1:4001/mcp' }, prefix: 's' },
  ],
  onHealthChange: ({ backend, status, error }) => console.error(backend, status, error ?? ''),
});

const server = await listen({
  runtime: proxy.runtime({
    authorization: {
      canList: (principal, item) => item.backend !== 'admin' || principal?.scopes?.includes('admin') === true,
      canCall: (principal, item) => !item.name.endsWith('.delete') || principal?.principal === 'ops',
    },
  }),
  port: 4000,
});
console.info(proxy.health());
process.once('SIGTERM', async () => {
  await server.close();
  await proxy.close();
});
