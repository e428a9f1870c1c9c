// The demo server's cluster flags: --redis needs the shared MRTR keyring from SNODO_MRTR_SECRET,
// and refuses to start without it (or with a short secret) before it touches Redis.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const DEMO = join(dirname(require.resolve('everything/package.json')), 'dist', 'main.js');

/** Runs the demo to its exit with `env` (SNODO_MRTR_SECRET removed unless given): code and stderr. */
function runDemo(args: string[], secret?: string): Promise<{ code: number | null; stderr: string }> {
  const env = { ...process.env };
  delete env.SNODO_MRTR_SECRET;
  if (secret !== undefined) env.SNODO_MRTR_SECRET = secret;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [DEMO, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.once('exit', (code) => resolve({ code, stderr }));
  });
}

describe('the demo server as a cluster member', () => {
  // Port 1 on loopback: nothing listens there, and the demo must stop before trying it.
  const redis = ['--port', '0', '--redis', 'redis://127.0.0.1:1'];

  it('refuses --redis without SNODO_MRTR_SECRET: exit code 2 and why', async () => {
    const { code, stderr } = await runDemo(redis);
    expect(code).toBe(2);
    expect(stderr).toContain('SNODO_MRTR_SECRET is required with --redis');
  });

  it('refuses a secret of 31 characters, naming it; 32 characters pass the check (and reach Redis)', async () => {
    const short = await runDemo(redis, 'x'.repeat(31));
    expect(short.code).toBe(2);
    expect(short.stderr).toContain('SNODO_MRTR_SECRET: secret 1 has 31 characters; each needs 32 or more');
    const enough = await runDemo(redis, 'x'.repeat(32));
    expect(enough.stderr).not.toContain('SNODO_MRTR_SECRET');
    expect(enough.code).not.toBe(0);
  });
});
