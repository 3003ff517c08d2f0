// JSON values that can no longer change: deeply frozen, and marked so. The value encoder
// compares a state with its memo by value, because a caller may change its state in place;
// a marked value it met at the same place last time is the same value, so it takes the
// memo's encoding without a walk. A caller that builds its own copies of what it stores
// (ForgeSaver's value codec keeps the JSON of each message it converted, and puts that same
// object into every later state) freezes them and spares the encoder a walk over every old
// message at every put.

/** Containers frozen by `freezeJson`, each with everything under it. */
const frozen = new WeakSet<object>();

/** Deeper than this, `freezeJson` leaves a value as it is (it recurses; values this deep are rare). */
const MAX_DEPTH = 100;

/**
 * Freezes a JSON value the caller built (data properties only: JSON.parse output, object
 * literals) and marks each container whose whole content is plain JSON; returns whether
 * `v` itself is now marked (JSON primitives: true). Containers marked before are not walked again.
 */
export function freezeJson(v: unknown, depth = 0): boolean {
  if (v === null) return true;
  if (typeof v !== "object") return typeof v === "string" || typeof v === "number" || typeof v === "boolean";
  if (frozen.has(v)) return true;
  if (depth > MAX_DEPTH) return false;
  let plain = true;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (!(i in v) || !freezeJson(v[i], depth + 1)) plain = false;
  } else {
    const proto: unknown = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) return false;
    for (const k of Object.keys(v)) if (!freezeJson((v as Record<string, unknown>)[k], depth + 1)) plain = false;
  }
  Object.freeze(v);
  if (plain) frozen.add(v);
  return plain;
}

/** Whether `v` was frozen whole by `freezeJson`: it holds the same JSON for as long as it lives. */
export function isFrozenJson(v: object): boolean {
  return frozen.has(v);
}
