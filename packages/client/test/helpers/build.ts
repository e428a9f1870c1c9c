// vitest globalSetup: builds the demo server, the conformance client and server, and client-transports (which build this
// package through its project references), so no test runs a stale dist. Under `pnpm test` turbo
// built them already and `tsc -b` finds them up to date.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import {
  CONFORMANCE_PROJECT,
  CONFORMANCE_SERVER_PROJECT,
  DEMO_PROJECT,
  TRANSPORTS_PROJECT,
} from './paths.js';

export default function setup(): void {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  for (const project of [DEMO_PROJECT, CONFORMANCE_PROJECT, CONFORMANCE_SERVER_PROJECT, TRANSPORTS_PROJECT]) {
    try {
      execFileSync(process.execPath, [tsc, '-b', project], { stdio: 'pipe', encoding: 'utf8' });
    } catch (error) {
      const { stdout, stderr } = error as { stdout?: string; stderr?: string };
      throw new Error(`tsc -b ${project} failed:\n${stdout ?? ''}${stderr ?? ''}`);
    }
  }
}
