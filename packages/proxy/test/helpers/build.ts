import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

// The tests spawn the demo server and this package's bin; turbo builds both first (everything is
// a devDependency, the bin is this package's own build). Without turbo, build them here.
export default function setup(): void {
  const require = createRequire(import.meta.url);
  const demo = dirname(require.resolve('everything/package.json'));
  const own = join(dirname(require.resolve('../../package.json')));
  for (const dir of [demo, own]) {
    const marker = dir === demo ? join(dir, 'dist', 'main.js') : join(dir, 'dist', 'cli', 'main.js');
    if (!existsSync(marker))
      execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-b'], {
        cwd: dir,
        stdio: 'inherit',
      });
  }
}
