import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

// The tests spawn the demo server and this example's main; turbo builds both first. Without
// turbo, build them here.
export default function setup(): void {
  const require = createRequire(import.meta.url);
  for (const dir of [
    dirname(require.resolve('everything/package.json')),
    join(import.meta.dirname, '..', '..'),
  ]) {
    if (!existsSync(join(dir, 'dist', 'main.js'))) {
      execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-b'], {
        cwd: dir,
        stdio: 'inherit',
      });
    }
  }
}
