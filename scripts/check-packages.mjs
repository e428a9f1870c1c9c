#!/usr/bin/env node
// `pnpm check:packages`: packs every public package as `pnpm publish` would and checks what a user
// would install:
//   - the tarball holds LICENSE, README.md and package.json, no .tsbuildinfo, and every source map
//     ships with the sources it names;
//   - no `workspace:` range is left in the packed package.json (pnpm rewrites them on pack);
//   - publint --strict and @arethetypeswrong/cli (esm-only profile) pass on the tarball.
// Prints each package's packed and unpacked size. Run after `pnpm build`; exits 1 on any failure.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, normalize, posix } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);
const work = mkdtempSync(join(tmpdir(), 'snodo-pack-'));
const problems = [];

function run(command, args, cwd = root) {
  return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Runs a checker; returns its output, recording a problem when it exits non-zero. */
function check(name, command, args) {
  try {
    return run(command, args);
  } catch (error) {
    problems.push(`${name}: ${command.split('/').pop()} failed`);
    return `${error.stdout ?? ''}${error.stderr ?? ''}`;
  }
}

const packages = readdirSync(join(root, 'packages'))
  .map((dir) => join(root, 'packages', dir))
  .filter((dir) => existsSync(join(dir, 'package.json')))
  .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) }))
  .filter(({ manifest }) => manifest.private !== true);

const sizes = [];
try {
  for (const { dir, manifest } of packages) {
    const name = manifest.name;
    const dest = join(work, name.replace('/', '+'));
    run('pnpm', ['pack', '--pack-destination', dest], dir);
    const tarball = join(
      dest,
      readdirSync(dest).find((file) => file.endsWith('.tgz')),
    );
    const files = run('tar', ['tzf', tarball])
      .split('\n')
      .filter(Boolean)
      .map((entry) => entry.replace(/^package\//, ''));
    const inTarball = new Set(files);

    for (const required of ['LICENSE', 'README.md', 'package.json']) {
      if (!inTarball.has(required)) problems.push(`${name}: ${required} missing from the tarball`);
    }
    for (const file of files.filter((f) => f.endsWith('.tsbuildinfo'))) {
      problems.push(`${name}: ${file} is in the tarball`);
    }

    run('tar', ['xzf', tarball, '-C', dest]);
    const unpacked = join(dest, 'package');
    for (const map of files.filter((f) => f.endsWith('.map'))) {
      const { sources = [] } = JSON.parse(readFileSync(join(unpacked, map), 'utf8'));
      for (const source of sources) {
        const target = normalize(posix.join(posix.dirname(map), source));
        if (!inTarball.has(target)) problems.push(`${name}: ${map} names ${source}, which is not shipped`);
      }
    }
    const packed = JSON.parse(readFileSync(join(unpacked, 'package.json'), 'utf8'));
    for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
      for (const [dep, range] of Object.entries(packed[field] ?? {})) {
        if (String(range).startsWith('workspace:')) problems.push(`${name}: ${field}.${dep} is ${range}`);
      }
    }
    for (const field of ['repository', 'homepage', 'bugs', 'keywords', 'description', 'license']) {
      if (packed[field] === undefined) problems.push(`${name}: package.json has no ${field}`);
    }

    const publint = check(name, bin('publint'), ['run', tarball, '--strict']);
    const attw = check(name, bin('attw'), [
      tarball,
      '--profile',
      'esm-only',
      '--format',
      'table-flipped',
      '--no-color',
      '--no-emoji',
    ]);
    const unpackedBytes = files.reduce((sum, f) => sum + (statOrZero(join(unpacked, f)) ?? 0), 0);
    sizes.push({ name, packed: statSync(tarball).size, unpacked: unpackedBytes, files: files.length });
    console.log(`## ${name}\n${publint.trim()}\n${attw.trim()}\n`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

function statOrZero(path) {
  try {
    const stat = statSync(path);
    return stat.isFile() ? stat.size : 0;
  } catch {
    return 0;
  }
}

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} kB`;
console.log('| package | packed | unpacked | files |\n|---|---:|---:|---:|');
for (const s of sizes) console.log(`| ${s.name} | ${kb(s.packed)} | ${kb(s.unpacked)} | ${s.files} |`);
if (problems.length > 0) {
  console.error(
    `\ncheck:packages: ${problems.length} problem(s)\n${problems.map((p) => `- ${p}`).join('\n')}`,
  );
  process.exit(1);
}
console.log(`\ncheck:packages: ${sizes.length} packages OK`);
