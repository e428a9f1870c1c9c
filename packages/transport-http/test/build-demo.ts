// vitest globalSetup: builds the demo server the SDK interop test spawns (examples/everything, with
// its project references), so it never runs a stale dist. Under `pnpm test` turbo built it already.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

export const DEMO_PROJECT = fileURLToPath(new URL('../../../examples/everything', import.meta.url));

export default function setup(): void {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  try {
    execFileSync(process.execPath, [tsc, '-b', DEMO_PROJECT], { stdio: 'pipe', encoding: 'utf8' });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`building the demo server failed:\n${stdout ?? ''}${stderr ?? ''}`);
  }
}
