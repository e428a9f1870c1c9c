import { ProxyError } from '../errors.js';
import {
  type BackendSnapshot,
  compare,
  type Entry,
  LIST_KINDS,
  type ListKind,
  type TemplateEntry,
} from './snapshot.js';

/**
 * The merged catalog: every backend's accepted snapshot, indexed. Immutable; `with` and
 * `without` return a new one, so a request holds one consistent catalog for its whole run while
 * backends are added, refreshed or removed around it.
 */
export class Catalog {
  static readonly EMPTY = new Catalog(new Map());

  readonly snapshots: ReadonlyMap<string, BackendSnapshot>;
  readonly lists: Readonly<Record<ListKind, readonly Entry[]>>;
  readonly tools: ReadonlyMap<string, Entry>;
  readonly prompts: ReadonlyMap<string, Entry>;
  readonly resources: ReadonlyMap<string, Entry>;
  readonly templates: ReadonlyMap<string, TemplateEntry>;
  readonly size: number;

  private constructor(snapshots: ReadonlyMap<string, BackendSnapshot>) {
    this.snapshots = snapshots;
    const all = [...snapshots.values()];
    const merged = (kind: ListKind) =>
      Object.freeze(
        all.flatMap((snapshot) => snapshot[kind] as readonly Entry[]).sort((a, b) => compare(a.key, b.key)),
      );
    this.lists = Object.freeze({
      tools: merged('tools'),
      prompts: merged('prompts'),
      resources: merged('resources'),
      templates: merged('templates'),
    });
    this.tools = new Map(this.lists.tools.map((entry) => [entry.key, entry]));
    this.prompts = new Map(this.lists.prompts.map((entry) => [entry.key, entry]));
    this.resources = new Map(this.lists.resources.map((entry) => [entry.key, entry]));
    this.templates = new Map(this.lists.templates.map((entry) => [entry.key, entry as TemplateEntry]));
    this.size = all.reduce((sum, snapshot) => sum + snapshot.size, 0);
  }

  /**
   * This catalog with `snapshot` in place of its backend's previous one. Throws `ProxyError`
   * `catalog_limit` past `maxItems`, `duplicate_name` for a tool or prompt name another backend
   * has, `uri_collision` for a URI another backend has.
   */
  with(snapshot: BackendSnapshot, maxItems: number): { catalog: Catalog; changed: ListKind[] } {
    const previous = this.snapshots.get(snapshot.id);
    const others = [...this.snapshots.values()].filter((other) => other.id !== snapshot.id);
    const size = others.reduce((sum, other) => sum + other.size, 0) + snapshot.size;
    if (size > maxItems) {
      throw new ProxyError(
        'SNODO_ERR_CATALOG_LIMIT',
        `backend "${snapshot.id}" brings ${snapshot.size} items, ${size} in all, over the limit of ${maxItems}`,
        { limit: maxItems, backend: snapshot.id, size },
      );
    }
    for (const kind of ['tools', 'prompts'] as const) {
      const names = clash(snapshot[kind], others, kind);
      if (names.length > 0) {
        throw new ProxyError(
          'SNODO_ERR_DUPLICATE_NAME',
          `backend "${snapshot.id}": ${names.map(([name, owner]) => `${JSON.stringify(name)} (backend "${owner}")`).join(', ')}`,
          { backend: snapshot.id, kind: kind.slice(0, -1), names: names.map(([name]) => name) },
        );
      }
    }
    for (const kind of ['resources', 'templates'] as const) {
      const uris = clash(snapshot[kind], others, kind);
      if (uris.length > 0) {
        throw new ProxyError(
          'SNODO_ERR_URI_COLLISION',
          `backend "${snapshot.id}": ${uris.map(([uri, owner]) => `${JSON.stringify(uri)} (backend "${owner}")`).join(', ')}`,
          { backend: snapshot.id, uris: uris.map(([uri]) => uri) },
        );
      }
    }
    const snapshots = new Map(this.snapshots);
    snapshots.set(snapshot.id, snapshot);
    return {
      catalog: new Catalog(snapshots),
      changed: LIST_KINDS.filter((kind) => differs(previous, snapshot, kind)),
    };
  }

  /** This catalog without backend `id`'s items. */
  without(id: string): { catalog: Catalog; changed: ListKind[] } {
    const previous = this.snapshots.get(id);
    if (!previous) return { catalog: this, changed: [] };
    const snapshots = new Map(this.snapshots);
    snapshots.delete(id);
    return {
      catalog: new Catalog(snapshots),
      changed: LIST_KINDS.filter((kind) => previous[kind].length > 0),
    };
  }
}

function clash(
  entries: readonly Entry[],
  others: readonly BackendSnapshot[],
  kind: ListKind,
): [string, string][] {
  const owners = new Map<string, string>();
  for (const other of others) for (const entry of other[kind]) owners.set(entry.key, other.id);
  const found: [string, string][] = [];
  for (const entry of entries) {
    const owner = owners.get(entry.key);
    if (owner !== undefined) found.push([entry.key, owner]);
  }
  return found;
}

function differs(before: BackendSnapshot | undefined, after: BackendSnapshot, kind: ListKind): boolean {
  const a = before?.[kind] ?? [];
  const b = after[kind];
  if (a.length !== b.length) return true;
  return JSON.stringify(a.map((entry) => entry.listing)) !== JSON.stringify(b.map((entry) => entry.listing));
}
