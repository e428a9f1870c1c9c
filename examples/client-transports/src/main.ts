#!/usr/bin/env node
// Calls the same tool (echo) on the demo server over stdio, Streamable HTTP, in-process and a
// transport object, and
// prints the revision each connection negotiated:  node dist/main.js
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { connect, StdioTransport, type Target } from '@snodo/client';
import { createEverythingServer } from 'everything/server';

const demo = join(dirname(createRequire(import.meta.url).resolve('everything/package.json')), 'dist/main.js');

// The HTTP demo server prints its URL on stdout once it listens.
const http = spawn(process.execPath, [demo, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
const [chunk] = (await once(http.stdout, 'data')) as [Buffer];
const url = chunk.toString('utf8').trim();

const targets: Record<string, Target> = {
  stdio: { stdio: { command: process.execPath, args: [demo, '--stdio'] } },
  http: { http: url },
  'in-process': { direct: createEverythingServer() },
  // A transport object (any ClientTransport); here the built-in stdio one, constructed by hand.
  custom: { transport: new StdioTransport({ command: process.execPath, args: [demo, '--stdio'] }) },
};

try {
  for (const [name, target] of Object.entries(targets)) {
    const client = await connect(target);
    const result = await client.callTool('echo', { text: `hello over ${name}` });
    const first = result.content[0];
    console.log(`${name.padEnd(10)} ${client.protocolVersion}  ${first?.type === 'text' ? first.text : '?'}`);
    await client.close();
  }
} finally {
  http.kill('SIGTERM');
}
