// Which checkout a row's Snodo code comes from. By default this one (bare specifiers resolve through
// bench/node_modules); with `--base PATH` a second row per Snodo row runs the same scenario against
// another checkout, built in its own directory, and its server children get SNODO_BENCH_ROOT=PATH.
// Only the workspace's own packages are taken from there: the peers (SDKs, zod, fastify) and the
// load generators stay the same for both sides of a before/after comparison.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

export const ROOT_ENV = 'SNODO_BENCH_ROOT';

/** The workspace folder holding a package of the checkout, or undefined for a dependency. */
function packageDir(root, name) {
  if (name.startsWith('@snodo/')) return join(root, 'packages', name.slice('@snodo/'.length));
  if (name === 'everything') return join(root, 'examples', 'everything');
  return undefined;
}

/** Picks the file an `exports` entry maps to for `import` (conditions: import, node, default). */
function exportTarget(entry) {
  if (typeof entry === 'string') return entry;
  if (entry === null || typeof entry !== 'object') return undefined;
  for (const condition of ['import', 'node', 'default']) {
    const target = exportTarget(entry[condition]);
    if (target !== undefined) return target;
  }
  return undefined;
}

/**
 * The file URL `specifier` (a workspace package, optionally with a subpath) resolves to in the
 * checkout at `root`, or undefined when it is not a workspace package (import it normally).
 */
export function resolveIn(root, specifier) {
  const parts = specifier.split('/');
  const nameLength = specifier.startsWith('@') ? 2 : 1;
  const name = parts.slice(0, nameLength).join('/');
  const dir = packageDir(root, name);
  if (dir === undefined) return undefined;
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const subpath = ['.', ...parts.slice(nameLength)].join('/');
  const target =
    manifest.exports === undefined
      ? subpath === '.'
        ? (manifest.main ?? 'index.js')
        : subpath
      : exportTarget(
          typeof manifest.exports === 'string'
            ? { '.': manifest.exports }[subpath]
            : manifest.exports[subpath],
        );
  if (target === undefined) throw new Error(`${specifier}: no export ${subpath} in ${dir}`);
  return pathToFileURL(resolve(dir, target)).href;
}

/** Imports `specifier` from the checkout named by SNODO_BENCH_ROOT, or normally without it. */
export function importSnodo(specifier) {
  const root = process.env[ROOT_ENV];
  const url = root === undefined || root === '' ? undefined : resolveIn(root, specifier);
  return import(url ?? specifier);
}

/** A path inside the checkout at `root` (or this one), as a file URL. */
export function inCheckout(root, path) {
  return pathToFileURL(join(root ?? THIS_ROOT, path));
}

export const THIS_ROOT = new URL('../../../', import.meta.url).pathname;

/** Why `root` cannot serve as a base checkout, or undefined. */
export function baseProblem(root) {
  for (const path of ['packages/core/dist', 'packages/transport-http/dist', 'examples/everything/dist']) {
    if (!existsSync(join(root, path)))
      return `${join(root, path)} is missing (build the base checkout first)`;
  }
  return undefined;
}
