// vitest globalSetup: builds the demo server the end-to-end tests spawn, with its project
// references (core, this package), so they never run a stale dist. Under `pnpm test` turbo has
// built it already (turbo.json: this package's test depends on everything#build) and `tsc -b`
// finds it up to date.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { DEMO_PROJECT } from './paths.js';

export default function setup(): void {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  try {
    execFileSync(process.execPath, [tsc, '-b', DEMO_PROJECT], { stdio: 'pipe', encoding: 'utf8' });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(
      `building the demo server (tsc -b ${DEMO_PROJECT}) failed:\n${stdout ?? ''}${stderr ?? ''}`,
    );
  }
}
