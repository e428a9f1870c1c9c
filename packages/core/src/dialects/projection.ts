/**
 * Field projection: a revision's wire carries only the fields its schema knows. Each table names
 * the keys a kind of object may keep in that revision.
 */
export type KeyTable = Readonly<Record<string, ReadonlySet<string>>>;

export function keys(...names: string[]): ReadonlySet<string> {
  return new Set(names);
}

export function project(value: unknown, allowed: ReadonlySet<string> | undefined): unknown {
  if (!allowed || typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  let dropped = false;
  for (const key in value) {
    if (!allowed.has(key)) {
      dropped = true;
      break;
    }
  }
  if (!dropped) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) if (allowed.has(key)) out[key] = item;
  return out;
}

export function projectAll(values: unknown, allowed: ReadonlySet<string> | undefined): unknown {
  if (!allowed || !Array.isArray(values)) return values;
  let changed = false;
  const out = values.map((value) => {
    const projected = project(value, allowed);
    if (projected !== value) changed = true;
    return projected;
  });
  return changed ? out : values;
}
