import { afterEach, describe, expect, it } from 'vitest';
import { closeAll, modern, raw, rawRequest, start } from './helpers.js';

afterEach(closeAll);

describe('JSON answers', () => {
  it('carry Content-Length and are not chunked', async () => {
    const server = await start();
    const client = await raw(Number(new URL(server.url()).port));
    client.socket.write(
      rawRequest(modern('tools/call', { name: 'echo', arguments: { text: 'é' } }), { connection: 'close' }),
    );
    await client.closed;
    const [head = '', body = ''] = client.received().split('\r\n\r\n');
    expect(head.toLowerCase()).not.toContain('transfer-encoding');
    const length = /content-length: (\d+)/i.exec(head)?.[1];
    expect(Number(length)).toBe(Buffer.byteLength(body));
    expect(JSON.parse(body).result.content[0].text).toBe('é');
  });
});
