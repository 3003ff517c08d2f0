// LangGraph values (channel values, pending writes, metadata) in and out of Forge value
// trees. What LangGraph's serializer turns into JSON is stored as that JSON value inside the
// state — not as a string — so Forge's content addressing and array chunking dedupe it: an
// unchanged channel, a channel equal in two threads, the old part of a growing message list
// all keep their hashes. Other serializations are stored as base64 with their type.
//
// With LangGraph's own JsonPlusSerializer the conversion is done here, not by a stringify
// and a parse of the whole value per put: plain JSON is copied as it is, and only objects
// that are not plain (a LangChain message, a Date, a Set) go through the serializer — each
// on its own, with the serializer's exact rules (see `#walk`). The result is the value that
// JSON.parse of the serializer's text would give.
//
// Reading back, only the sub-trees the serializer gives a meaning to go through it, and a
// LangChain object (a message) with nothing inside for the serializer to revive goes
// straight to what the serializer ends in for it, LangChain's `load` (lc-revive.ts): the
// serializer's own pass before (a promise per field, a stringify and a parse) and load's
// (the same again) made reading a long message list ~10× slower than building the messages.
import { Buffer } from "node:buffer";
import { isDeepStrictEqual } from "node:util";
import { load } from "@langchain/core/load";
import { DeltaSnapshot, JsonPlusSerializer, type SerializerProtocol } from "@langchain/langgraph-checkpoint";
import { setOwn } from "../../core/own.js";
import { freezeJson } from "../../objects/frozen-json.js";
import { isConstructorRecord, loadConstructor } from "./lc-revive.js";

/** A value as a state holds it: parsed JSON, or the serializer's bytes with their type. */
export type StoredValue = { readonly json: unknown } | { readonly type: string; readonly base64: string };

export function isStoredValue(v: unknown): v is StoredValue {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const r = v as Record<string, unknown>;
  return Object.hasOwn(r, "json") || (typeof r["type"] === "string" && typeof r["base64"] === "string");
}

export interface CodecOptions {
  /**
   * Reuse the stored form of a LangChain serializable object (a message, a document) met
   * again as the very same object, instead of serializing it again. LangGraph's reducers
   * replace messages rather than change them, so a growing message list then costs its
   * new messages only. Turn off if your nodes change such objects in place.
   */
  readonly reuseSerializable?: boolean;
}

const utf8 = new TextDecoder();

/** Walking further than this is left to the serializer (it also handles cycles). */
const MAX_DEPTH = 200;

/** Raised inside `#walk` when only the serializer can say what a value becomes. */
class UseSerializer extends Error {}

/** What the item cache knows of an object it converted or revived. */
interface Known {
  readonly json: unknown;
  /** A plain object: compared with `json` on every use, so a change in place is seen. */
  readonly plain: boolean;
  /**
   * `json` is frozen (frozen-json.ts): done at its first reuse, when it is complete. Nothing
   * changes a stored JSON value, and frozen, the value encoder takes it from its memo by
   * identity instead of walking every old message of a list at every put.
   */
  frozen?: boolean;
}

/** The stored JSON of a known object, to use again; frozen the first time. */
function reuse(known: Known): unknown {
  if (known.frozen !== true) {
    freezeJson(known.json);
    known.frozen = true;
  }
  return known.json;
}

/** A stored sub-tree the revive left for the serializer (or `load`): where its value goes. */
interface Revival {
  readonly json: Record<string, unknown>;
  readonly target: Record<string, unknown> | unknown[];
  readonly key: string | number;
}

/**
 * A message as JsonPlusSerializer stores one, to check once that `load` as imported here
 * is the one the serializer calls (one copy of @langchain/core): both must give an object
 * of the same class and content.
 */
const PROBE = JSON.stringify({
  lc: 1,
  type: "constructor",
  id: ["langchain_core", "messages", "HumanMessage"],
  kwargs: { content: "probe", id: "probe", additional_kwargs: {}, response_metadata: {} },
});

/** An object the walk left for the serializer: where its JSON goes once known. */
interface Pending {
  readonly value: object;
  readonly slots: { readonly target: Record<string, unknown> | unknown[]; readonly key: string | number }[];
}

export class ValueCodec {
  readonly #serde: SerializerProtocol;
  /** The serializer is exactly LangGraph's JsonPlusSerializer, whose format this module knows. */
  readonly #jsonPlus: boolean;
  readonly #reuseSerializable: boolean;
  /**
   * Array items (and LangChain objects anywhere) by identity → their stored JSON. Plain
   * items are checked against it on use; serializable objects are trusted (see options).
   */
  readonly #known = new WeakMap<object, Known>();
  /** Lists `revive` handed out, by their first item: what each item was read from, by place. */
  readonly #revived = new WeakMap<object, { readonly items: readonly unknown[]; readonly json: readonly unknown[] }>();
  /** Whether `load` here is the serializer's (checked once, on the first LangChain object read back). */
  #loadsDirectly: Promise<boolean> | undefined;
  /**
   * By class: whether its objects' JSON is their `toJSON()` walked here (true), as checked on
   * the first of them against the serializer's text, or not (false). See `#direct`.
   */
  readonly #directClasses = new Map<unknown, boolean>();

  constructor(serde: SerializerProtocol, options: CodecOptions = {}) {
    this.#serde = serde;
    this.#jsonPlus = serde.constructor === JsonPlusSerializer;
    this.#reuseSerializable = options.reuseSerializable ?? true;
  }

  /** The stored form of a value. */
  async toStored(value: unknown): Promise<StoredValue> {
    polluted = false;
    for (const _k in {}) polluted = true;
    if (this.#jsonPlus && !(value instanceof Uint8Array)) {
      try {
        const pending = new Map<object, Pending>();
        const holder: unknown[] = [undefined];
        holder[0] = this.#walk(value, 0, pending, holder, 0, true);
        if (pending.size > 0) await this.#serializeEach(pending);
        return { json: holder[0] };
      } catch (e) {
        if (!(e instanceof UseSerializer)) throw e;
      }
    }
    const [type, bytes] = await this.#serde.dumpsTyped(value);
    if (type === "json") return { json: JSON.parse(utf8.decode(bytes)) as unknown };
    return { type, base64: Buffer.from(bytes).toString("base64") };
  }

  /**
   * The value a stored form holds, as new objects the caller may change. Objects the
   * serializer revives are remembered with their stored JSON, and each list by its first
   * item, so putting them back (the next step of a graph resumed from this checkpoint)
   * neither serializes nor copies them again.
   */
  async revive(stored: StoredValue): Promise<unknown> {
    if (!("json" in stored)) {
      const bytes = Buffer.from(stored.base64, "base64");
      return this.#serde.loadsTyped(stored.type, new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    }
    if (!this.#jsonPlus) return this.#serde.loadsTyped("json", JSON.stringify(stored.json));
    const pending: Revival[] = [];
    const holder: unknown[] = [undefined];
    holder[0] = this.#revive(stored.json, pending, holder, 0);
    if (pending.length > 0) {
      const direct = await (this.#loadsDirectly ??= sameLoad(this.#serde));
      await Promise.all(
        pending.map(async ({ json, target, key }) => {
          const serializable = isSerializedConstructor(json);
          const value = (await (direct && isConstructorRecord(json) && !holdsLc(json, 0)
            ? loadConstructor(json)
            : this.#serde.loadsTyped("json", JSON.stringify(json)))) as unknown;
          if (this.#reuseSerializable && serializable && typeof value === "object" && value !== null) this.#known.set(value, { json, plain: false });
          if (Array.isArray(target)) target[key as number] = value;
          else setOwn(target, key as string, value);
        }),
      );
    }
    return holder[0];
  }

  /**
   * JsonPlusSerializer's JSON for `v`, built directly: JSON.stringify with its replacer
   * (undefined → an "undefined" record; functions and symbols left out of objects and null
   * in arrays; non-finite numbers null), with objects that are not plain JSON queued in
   * `pending` for the serializer. Array items are remembered (the item cache), so the next
   * put of a growing list checks its old items instead of copying them.
   */
  #walk(v: unknown, depth: number, pending: Map<object, Pending>, target: Record<string, unknown> | unknown[], key: string | number, top = false): unknown {
    switch (typeof v) {
      case "string":
      case "boolean":
        return v;
      case "number":
        return Number.isFinite(v) ? (v === 0 ? 0 : v) : null; // JSON has no -0
      case "undefined":
        return { lc: 2, type: "undefined" };
      case "object":
        break;
      case "function":
      case "symbol":
        if (top) throw new UseSerializer();
        return null; // in arrays; objects skip these keys before calling
      default:
        throw new UseSerializer(); // bigint: whatever the serializer does with it
    }
    if (v === null) return null;
    if (depth > MAX_DEPTH) throw new UseSerializer();
    const known = this.#known.get(v);
    if (known !== undefined) {
      if (!known.plain || samePlain(v, known.json, 0)) return reuse(known);
      this.#known.delete(v); // changed in place since
    }
    if (Array.isArray(v) && typeof (v as { toJSON?: unknown }).toJSON !== "function") {
      const n = v.length;
      const out = new Array<unknown>(n);
      const first: unknown = v[0];
      const read = typeof first === "object" && first !== null ? this.#revived.get(first) : undefined;
      for (let i = 0; i < n; i++) {
        const item: unknown = v[i];
        if (typeof item !== "object" || item === null) {
          out[i] = this.#walk(item, depth + 1, pending, out, i);
          continue;
        }
        // A list read back and grown since: an item still at its place is checked against its stored JSON, not copied.
        if (read !== undefined && read.items[i] === item && isPlainObject(item) && samePlain(item, read.json[i], 0)) {
          freezeJson((out[i] = read.json[i]));
          continue;
        }
        // The item cache: an item met before (the old part of a growing list) is checked, not copied.
        const seen = this.#known.get(item);
        if (seen !== undefined) {
          if (!seen.plain || samePlain(item, seen.json, 0)) {
            out[i] = reuse(seen);
            continue;
          }
          this.#known.delete(item); // changed in place since
        }
        const json = this.#walk(item, depth + 1, pending, out, i);
        out[i] = json;
        if (!Array.isArray(item) && isPlainObject(item)) this.#known.set(item, { json, plain: true });
      }
      return out;
    }
    if (isDeltaSnapshot(v)) {
      // What JsonPlusSerializer's replacer turns a DeltaSnapshot into; its value is walked on.
      const out: Record<string, unknown> = { lc: 2, type: "delta_snapshot", value: undefined };
      out["value"] = this.#walk(v.value, depth + 1, pending, out, "value");
      return out;
    }
    if (!isPlainObject(v)) {
      // A LangChain object of a class checked before: its JSON built here, without the serializer.
      if (this.#directClasses.get(v.constructor) === true) {
        const json = this.#direct(v, depth);
        if (json !== undefined) {
          if (this.#reuseSerializable) this.#known.set(v, { json, plain: false });
          return json;
        }
      }
      // Not plain JSON: the serializer decides (toJSON, Sets, Maps, messages, …).
      let p = pending.get(v);
      if (p === undefined) pending.set(v, (p = { value: v, slots: [] }));
      p.slots.push({ target, key });
      return null;
    }
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) {
      const x: unknown = (v as Record<string, unknown>)[k];
      if (typeof x === "function" || typeof x === "symbol") continue;
      setOwn(out, k, this.#walk(x, depth + 1, pending, out, k));
    }
    return out;
  }

  /**
   * The JSON JsonPlusSerializer gives a LangChain object (a message), built as its stringify
   * builds it — `toJSON()`, then that walked with the replacer — but without its cycle check,
   * its text and a parse of that text back: a third of the time. Undefined when the object is
   * not one, or holds something only the serializer may turn into JSON (then it decides).
   * Used for a class only once the first of its objects gave the serializer's very text.
   */
  #direct(v: object, depth: number): unknown {
    const o = v as { lc_serializable?: unknown; toJSON?: unknown };
    if (o.lc_serializable !== true || typeof o.toJSON !== "function") return undefined;
    try {
      const inner = new Map<object, Pending>();
      const holder: unknown[] = [undefined];
      const json = this.#walk((o.toJSON as () => unknown).call(v), depth + 1, inner, holder, 0);
      return inner.size === 0 && isSerializedConstructor(json) ? json : undefined;
    } catch {
      return undefined; // a cycle, anything odd: the serializer's way
    }
  }

  /** Serializes the queued objects one by one and puts their JSON where the walk left room. */
  async #serializeEach(pending: Map<object, Pending>): Promise<void> {
    await Promise.all(
      [...pending.values()].map(async (p) => {
        const [type, bytes] = await this.#serde.dumpsTyped(p.value);
        // Bytes inside a JSON value (a Uint8Array in a list) only the whole-value path encodes.
        if (type !== "json") throw new UseSerializer();
        const text = utf8.decode(bytes);
        const json = JSON.parse(text) as unknown;
        if (this.#reuseSerializable && isSerializedConstructor(json)) this.#known.set(p.value, { json, plain: false });
        // The first object of its class: may the next ones be built directly? Only if that gives this very text.
        const cls = p.value.constructor;
        if (isSerializedConstructor(json) && !this.#directClasses.has(cls)) {
          const direct = this.#direct(p.value, 0);
          if (direct !== undefined) this.#directClasses.set(cls, JSON.stringify(direct) === text);
        }
        for (const s of p.slots) {
          if (Array.isArray(s.target)) s.target[s.key as number] = json;
          else setOwn(s.target, s.key as string, json);
        }
      }),
    );
  }

  /**
   * A fresh copy of stored JSON, with every sub-tree the serializer gives a meaning to (an
   * object with an `lc` key: messages, undefined, Sets, DeltaSnapshots …) revived by it.
   * JsonPlusSerializer revives bottom-up and leaves other objects as they are, so reviving
   * those sub-trees alone gives what reviving the whole value would — except that a
   * `__proto__` key stays a key here, where its reviver would make it the object's prototype.
   */
  #revive(json: unknown, pending: Revival[], target: Record<string, unknown> | unknown[], key: string | number): unknown {
    if (typeof json !== "object" || json === null) return json;
    if (Array.isArray(json)) {
      const out = new Array<unknown>(json.length);
      for (let i = 0; i < json.length; i++) out[i] = this.#revive(json[i], pending, out, i);
      // The list as read, by its first item (one entry, not one per item): a list grown from it
      // finds its items' stored JSON by place at the next put.
      const first = out[0];
      if (typeof first === "object" && first !== null && out.length > 1) this.#revived.set(first, { items: out.slice(), json });
      return out;
    }
    if (Object.hasOwn(json, "lc")) {
      pending.push({ json: json as Record<string, unknown>, target, key });
      return null;
    }
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(json)) setOwn(out, k, this.#revive((json as Record<string, unknown>)[k], pending, out, k));
    return out;
  }
}

/** A plain JSON object as JsonPlusSerializer sees it: no class, no toJSON, no `lg_name` (its Send marker). */
function isPlainObject(v: object): boolean {
  const proto: unknown = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return false;
  return !Object.hasOwn(v, "lg_name") && typeof (v as { toJSON?: unknown }).toJSON !== "function";
}

function isDeltaSnapshot(v: object): v is DeltaSnapshot {
  return v instanceof DeltaSnapshot && typeof (v as { toJSON?: unknown }).toJSON !== "function";
}

/**
 * Whether `load` imported here is the one the serializer calls: both revive PROBE to an
 * object of the same class with the same fields. False on any doubt (two copies of
 * @langchain/core installed): everything then goes through the serializer.
 */
async function sameLoad(serde: SerializerProtocol): Promise<boolean> {
  try {
    const [a, b] = (await Promise.all([serde.loadsTyped("json", PROBE), load(PROBE)])) as [unknown, unknown];
    return (
      typeof a === "object" &&
      a !== null &&
      typeof b === "object" &&
      b !== null &&
      Object.getPrototypeOf(a) === Object.getPrototypeOf(b) &&
      isDeepStrictEqual(a, b)
    );
  } catch {
    return false;
  }
}

/**
 * Whether stored JSON holds, below its top, an object with an `lc` key — one the serializer
 * might revive before handing its parent to `load` (an undefined, a Set, a nested message).
 * Without one, the serializer's pass over the object only copies it, and `load` alone gives
 * its result.
 */
function holdsLc(json: unknown, depth: number): boolean {
  if (typeof json !== "object" || json === null) return false;
  if (depth > 0 && !Array.isArray(json) && Object.hasOwn(json, "lc")) return true;
  if (depth > MAX_DEPTH) return true;
  if (Array.isArray(json)) {
    for (const x of json) if (holdsLc(x, depth + 1)) return true;
    return false;
  }
  for (const k in json) if (Object.hasOwn(json, k) && holdsLc((json as Record<string, unknown>)[k], depth + 1)) return true;
  return false;
}

/** LangChain's serialized form of a Serializable object (a message, a document): a value object. */
function isSerializedConstructor(json: unknown): boolean {
  if (typeof json !== "object" || json === null) return false;
  const r = json as Record<string, unknown>;
  return r["lc"] === 1 && r["type"] === "constructor" && Array.isArray(r["id"]);
}

/** Whether Object.prototype has enumerable keys (for-in then yields inherited ones): checked at each toStored. */
let polluted = false;

const isJsonPrimitive = (v: unknown): boolean => v === null || typeof v === "string" || typeof v === "number" || typeof v === "boolean";

/**
 * Whether a live plain value still equals the stored JSON made from it (a caller may have
 * changed it in place since). Anything that is not plain JSON counts as a change. (for-in
 * rather than Object.keys: no allocation on this hot path; plain objects have no inherited
 * enumerable keys unless Object.prototype was polluted, which the key count then catches.)
 */
function samePlain(a: unknown, b: unknown, depth: number): boolean {
  if (a === b) return true; // stored JSON never holds a non-finite number, and -0 is stored as 0
  if (typeof a !== "object" || a === null || typeof b !== "object" || b === null || depth > MAX_DEPTH) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) {
      const x: unknown = a[i];
      if (x !== b[i] && (!(i in a) || !samePlain(x, b[i], depth + 1))) return false;
    }
    return true;
  }
  // The stored JSON came from a plain object without toJSON or lg_name keys; one gaining
  // such a key no longer matches it key for key, so only the prototype needs a look.
  const proto: unknown = Object.getPrototypeOf(a);
  if (Array.isArray(b) || (proto !== Object.prototype && proto !== null)) return false;
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  let n = 0;
  for (const k in ra) {
    n++;
    const x = ra[k];
    const y = rb[k];
    // Equal to a JSON primitive: b has k as its own (Object.prototype, unless polluted, holds none).
    if (x === y ? (polluted || !isJsonPrimitive(x)) && !Object.hasOwn(rb, k) : !samePlain(x, y, depth + 1)) return false;
  }
  for (const _k in rb) n--;
  return n === 0;
}
