// Reading fields of decoded host JSON (hook payloads, transcript records) by own properties
// only, so a "__proto__" or "constructor" key in a payload is data, never a prototype.
import { getOwn } from "../../../core/own.js";

/** A JSON object as decoded: a plain object (its keys own data properties). */
export type JsonObject = Record<string, unknown>;

/** Whether `v` is a JSON object (not null, not a list). */
export function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The own field `key` of `o` when it is a string. */
export function str(o: unknown, key: string): string | undefined {
  if (!isObject(o)) return undefined;
  const v = getOwn(o, key);
  return typeof v === "string" ? v : undefined;
}

/** The own field `key` of `o` when it is a non-empty string. */
export function text(o: unknown, key: string): string | undefined {
  const v = str(o, key);
  return v === undefined || v === "" ? undefined : v;
}

/** The own field `key` of `o` when it is a JSON object. */
export function obj(o: unknown, key: string): JsonObject | undefined {
  if (!isObject(o)) return undefined;
  const v = getOwn(o, key);
  return isObject(v) ? v : undefined;
}

/** The own field `key` of `o` when it is a list. */
export function list(o: unknown, key: string): unknown[] | undefined {
  if (!isObject(o)) return undefined;
  const v = getOwn(o, key);
  return Array.isArray(v) ? v : undefined;
}

/** The own field `key` of `o`, whatever it is. */
export function field(o: unknown, key: string): unknown {
  return isObject(o) ? getOwn(o, key) : undefined;
}

/** Whether the own field `key` of `o` is `true`. */
export function flag(o: unknown, key: string): boolean {
  return field(o, key) === true;
}

/** A shallow copy of `o` without `keys` ("__proto__" stays an own key of the copy). */
export function omit(o: JsonObject, keys: readonly string[]): JsonObject {
  const out: JsonObject = {};
  for (const k of Object.keys(o)) {
    if (keys.includes(k)) continue;
    if (k === "__proto__") Object.defineProperty(out, k, { value: o[k], enumerable: true, writable: true, configurable: true });
    else out[k] = o[k];
  }
  return out;
}
