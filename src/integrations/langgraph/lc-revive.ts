// Reviving LangChain objects (messages) read back from a thread, the way LangChain's `load`
// does, without its per-field machinery for the common case. `load` walks a serialized
// object with an async reviver that copies its context for every key (a promise and a few
// objects per field): for a message with nothing but plain data inside, that walk only
// copies the fields, and all that matters is the class it resolves and the keys it maps —
// yet it is ~15 µs a message, where the message's constructor is ~0.6 µs. A thread of 1,000
// messages read back spent most of its time there.
//
// So: the first object of each class id goes through `load` itself, and teaches the class
// it made; every later one with plain fields is built as `load` builds it — its kwargs
// copied as load's reviver copies them, keys mapped with the class's inverted `lc_aliases`
// and camelCase (LangChain's `keyFromJson` and `mapKeys`, which its package does not
// export, reproduced below), then `new Class(kwargs)`. The first build of each class is
// checked against what `load` gave (same class, deep-equal); a class that differs, and any
// object holding something `load` would do more with (a nested LangChain object, a secret,
// an escaped object, deep nesting), goes through `load`.
import { isDeepStrictEqual } from "node:util";
import { load } from "@langchain/core/load";

/** A serialized LangChain constructor record, as JsonPlusSerializer stores one. */
interface ConstructorRecord {
  readonly lc: 1;
  readonly type: "constructor";
  readonly id: readonly string[];
  readonly kwargs: Record<string, unknown>;
}

/** `load`'s own limit (DEFAULT_MAX_DEPTH) less a margin: deeper objects go through `load`, which decides. */
const MAX_DEPTH = 40;

type Build = (kwargs: Record<string, unknown>) => unknown;

/** By class id (the record's `id`, joined): how to build one, or null (always through `load`). */
const builders = new Map<string, Build | null>();
/** By class id: the first object of the class on its way through `load`, which the others wait for. */
const learning = new Map<string, Promise<Build | null>>();

/**
 * The object `load(JSON.stringify(record))` gives, built directly when that is the same;
 * `record` is a constructor record (see isConstructorRecord) and is not changed.
 */
export async function loadConstructor(record: ConstructorRecord): Promise<unknown> {
  if (!plainFields(record.kwargs, 1)) return load(JSON.stringify(record));
  const key = record.id.join("\u0000");
  let build = builders.get(key);
  if (build === undefined) {
    const lesson = learning.get(key);
    if (lesson === undefined) {
      // The first of its class: `load` makes it, and teaches (and checks) the direct way;
      // the others of a list read at once wait for that rather than all going through `load`.
      const loading = load(JSON.stringify(record)).then((loaded: unknown) => ({ loaded, build: learn(loaded, record) }));
      learning.set(
        key,
        loading.then(
          (l) => l.build,
          () => null,
        ),
      );
      try {
        const { loaded, build: learned } = await loading;
        builders.set(key, learned);
        return loaded;
      } finally {
        learning.delete(key);
      }
    }
    build = await lesson;
  }
  return build === null ? load(JSON.stringify(record)) : build(record.kwargs);
}

/** A serialized LangChain object with an id and kwargs: what `loadConstructor` takes. */
export function isConstructorRecord(json: unknown): json is ConstructorRecord {
  if (typeof json !== "object" || json === null || Array.isArray(json)) return false;
  const r = json as Record<string, unknown>;
  return (
    r["lc"] === 1 &&
    r["type"] === "constructor" &&
    Array.isArray(r["id"]) &&
    r["id"].length > 0 &&
    r["id"].every((s) => typeof s === "string") &&
    typeof r["kwargs"] === "object" &&
    r["kwargs"] !== null &&
    !Array.isArray(r["kwargs"])
  );
}

/** How to build objects like `loaded` from their kwargs, if building one again gives what `load` gave; else null. */
function learn(loaded: unknown, record: ConstructorRecord): Build | null {
  if (typeof loaded !== "object" || loaded === null) return null;
  const Class = (loaded as { constructor?: unknown }).constructor;
  if (typeof Class !== "function" || Class === Object) return null;
  const aliases = invertedAliases(Class as new (kwargs: Record<string, unknown>) => unknown);
  const build: Build = (kwargs) => new (Class as new (kwargs: Record<string, unknown>) => unknown)(mapKeys(copyFields(kwargs), aliases));
  try {
    const again = build(record.kwargs);
    return Object.getPrototypeOf(again) === Object.getPrototypeOf(loaded) && isDeepStrictEqual(again, loaded) ? build : null;
  } catch {
    return null;
  }
}

/**
 * Whether `v` is plain data for `load`'s reviver — nothing it would revive, unescape or
 * resolve: no object with an `lc` or `__lc_escaped__` key, and not deeper than MAX_DEPTH.
 */
function plainFields(v: unknown, depth: number): boolean {
  if (typeof v !== "object" || v === null) return true;
  if (depth > MAX_DEPTH) return false;
  if (Array.isArray(v)) {
    for (const x of v) if (!plainFields(x, depth + 1)) return false;
    return true;
  }
  if (Object.hasOwn(v, "lc") || Object.hasOwn(v, "__lc_escaped__")) return false;
  for (const k in v) if (Object.hasOwn(v, k) && !plainFields((v as Record<string, unknown>)[k], depth + 1)) return false;
  return true;
}

/** A copy of plain data as `load`'s reviver makes it: arrays mapped, objects rebuilt key by key by assignment. */
function copyFields(v: unknown): unknown {
  if (typeof v !== "object" || v === null) return v;
  if (Array.isArray(v)) return v.map(copyFields);
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = copyFields(x);
  return out;
}

// LangChain's load/map_keys and load's combineAliasesAndInvert, as @langchain/core 1.x has them.

const SEPARATORS = /[-_\s]+/g;

function camelCase(key: string): string {
  const trimmed = key.trim();
  if (!/[-_\s]/.test(trimmed)) return trimmed;
  return trimmed
    .replace(SEPARATORS, "_")
    .toLowerCase()
    .replace(/_+([a-z0-9])/g, (_, char: string) => char.toUpperCase());
}

function mapKeys(fields: unknown, map: Record<string, string>): Record<string, unknown> {
  const mapped: Record<string, unknown> = {};
  const f = fields as Record<string, unknown>;
  for (const key in f) if (Object.hasOwn(f, key)) mapped[map[key] || camelCase(key)] = f[key];
  return mapped;
}

function invertedAliases(Class: abstract new (...args: never[]) => unknown): Record<string, string> {
  const aliases: Record<string, string> = {};
  for (let current: unknown = Class; typeof current === "function" && current.prototype; current = Object.getPrototypeOf(current)) {
    Object.assign(aliases, Reflect.get(current.prototype as object, "lc_aliases"));
  }
  const inverted: Record<string, string> = {};
  for (const [key, value] of Object.entries(aliases)) inverted[value] = key;
  return inverted;
}
