// Decoded data stays data: keys such as "__proto__", "constructor" and "prototype" that come
// from a store, a bundle or any other input are ordinary own keys. Reading follows own
// properties only, and writing defines an own property, so no key path can reach or change
// a prototype (Object.prototype above all) in the process that reads it.

/** Sets an own, enumerable data property, also one named "__proto__" (a plain assignment would change the prototype). */
export function setOwn(target: Record<PropertyKey, unknown>, key: string | number, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** The value of `key` if it is an own property of `target`, else undefined (never an inherited one). */
export function getOwn(target: object, key: string | number): unknown {
  return Object.hasOwn(target, key) ? (target as Record<PropertyKey, unknown>)[key] : undefined;
}

/**
 * A deep copy of JSON-shaped data from an untrusted source, made of plain objects and arrays
 * whose keys are all own data properties ("__proto__" included). Values that are not JSON
 * (functions, symbols, class instances) are not expected here; they are copied as they are.
 */
export function copyData(v: unknown): unknown {
  if (typeof v !== "object" || v === null) return v;
  if (Array.isArray(v)) return v.map(copyData);
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) setOwn(out, k, copyData((v as Record<string, unknown>)[k]));
  return out;
}
