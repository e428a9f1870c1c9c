#!/usr/bin/env node
// The README's first command: makes the pinned pnpm (package.json `packageManager`) runnable as
// `pnpm`, then installs every dependency from the lockfile. It works on three kinds of machine:
//   1. `pnpm` already works (a global pnpm, or corepack with its cache filled): nothing to do.
//   2. `pnpm` is corepack's shim with an empty cache: `corepack install` fills the cache. Where the
//      registry serves no npm signatures, corepack (and pnpm's own download of its native binary)
//      refuse the download; only then is the check turned off, for this one download, and said so.
//   3. No `pnpm` on PATH but corepack present: as 2, then `corepack enable pnpm` puts the shim there.
// Node.js only, no dependency: it runs before anything is installed.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pinned = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).packageManager;
const version = /^pnpm@(\d+\.\d+\.\d+)$/.exec(pinned ?? '')?.[1];
if (version === undefined) fail(`package.json "packageManager" must be pnpm@x.y.z, found ${pinned}`);

const say = (line) => console.error(`setup: ${line}`);

/** Runs a command in the repository root; returns { status, out } (status null when not found). */
function run(command, args, { env = process.env, inherit = false } = {}) {
  const result = spawnSync(command, args, {
    cwd: root,
    env,
    encoding: 'utf8',
    stdio: inherit ? 'inherit' : 'pipe',
    shell: process.platform === 'win32',
  });
  if (result.error?.code === 'ENOENT') return { status: null, out: '' };
  return { status: result.status, out: `${result.stdout ?? ''}${result.stderr ?? ''}` };
}

function fail(message) {
  console.error(`setup: ${message}`);
  process.exit(1);
}

/** The version `pnpm --version` prints in the repository, or undefined when pnpm does not run. */
function pnpmVersion(env) {
  const { status, out } = run('pnpm', ['--version'], { env });
  if (status !== 0) return undefined;
  return /(\d+\.\d+\.\d+)\s*$/.exec(out.trim())?.[1];
}

const unsigned = (out) => /signature/i.test(out);

function installThroughCorepack() {
  if (run('corepack', ['--version']).status !== 0) {
    fail(
      `pnpm does not run and corepack is not available; install pnpm ${version} ` +
        `(https://pnpm.io/installation), then run this again`,
    );
  }
  let env = process.env;
  let result = run('corepack', ['install'], { env });
  if (result.status !== 0 && unsigned(result.out)) {
    say(
      `the registry serves no npm signatures; downloading pnpm ${version} without corepack's signature check`,
    );
    env = { ...process.env, COREPACK_INTEGRITY_KEYS: '0' };
    result = run('corepack', ['install'], { env });
  }
  if (result.status !== 0) fail(`corepack install failed:\n${result.out}`);

  if (run('pnpm', ['--version'], { env }).status === null) {
    say('no pnpm on PATH: corepack enable pnpm');
    const enabled = run('corepack', ['enable', 'pnpm']);
    if (enabled.status !== 0)
      fail(`corepack enable pnpm failed (run it with the rights it needs):\n${enabled.out}`);
  }
  // The first run of pnpm 12 from corepack's cache fetches its native binary, under the same
  // signature rule as corepack's own download.
  const first = run('pnpm', ['--version'], { env });
  if (first.status !== 0) fail(`pnpm ${version} from corepack does not run:\n${first.out}`);
}

let found = pnpmVersion(process.env);
if (found === undefined) {
  installThroughCorepack();
  found = pnpmVersion(process.env);
  if (found === undefined) fail(`pnpm still does not run after corepack install`);
}
if (found !== version)
  say(`pnpm ${found} on PATH; the project pins ${version} (pnpm ≥ 9 switches to it itself)`);
say(`pnpm ${found}: pnpm install --frozen-lockfile`);
const { status } = run('pnpm', ['install', '--frozen-lockfile'], { inherit: true });
process.exit(status ?? 1);
