/**
 * Cross-copy class brands. Each branded class holds its brand, a `Symbol.for` key, in a static slot
 * and answers `true` for it from a prototype getter; `instanceof` and `is` read the brand, so an
 * error made by another loaded copy of core (a proxy and a client, say) is still recognised.
 */
export const kBrand: unique symbol = Symbol('snodo.brand');

/** Whether `value` carries `brand` (its own property or up its prototype chain). */
export function isBranded(value: unknown, brand: symbol): boolean {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[brand] === true;
}

/** Puts `brand` on `ctor`'s prototype and in its static slot; returns the class. */
export function branded<C extends abstract new (...args: never[]) => object>(ctor: C, brand: symbol): C {
  Object.defineProperty(ctor.prototype, brand, { value: true });
  Object.defineProperty(ctor, kBrand, { value: brand });
  return ctor;
}

/**
 * `instanceof` for a branded class: its brand decides. A class without its own brand (an
 * application's subclass) falls back to the prototype chain, so `new SnodoError(…) instanceof
 * MySubclass` stays false.
 */
export function brandedInstance(ctor: object, value: unknown): boolean {
  const brand = Object.hasOwn(ctor, kBrand) ? (ctor as { [kBrand]: symbol })[kBrand] : undefined;
  if (brand !== undefined) return isBranded(value, brand);
  return Function.prototype[Symbol.hasInstance].call(ctor, value);
}
