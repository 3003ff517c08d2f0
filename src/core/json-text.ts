// JSON text of a value however deeply it nests. JSON.stringify recurses and runs out of
// stack a few thousand levels down, while JSON.parse (and so a state read from a file)
// has no such limit; a state Forge stored must come back out the way it went in. The
// fast path is JSON.stringify itself; only a value too deep for it takes the slower walk
// here, which writes exactly what JSON.stringify would (given the stack).

type Frame = {
  readonly value: object;
  readonly keys: readonly string[] | null;
  i: number;
  /** Whether an entry has been written (so the next one needs a comma). */
  any: boolean;
};

/** JSON.stringify(value, null, indent), for values of any depth. */
export function jsonText(value: unknown, indent?: number): string {
  try {
    return JSON.stringify(value, null, indent);
  } catch (e) {
    if (!(e instanceof RangeError) || !/call stack/i.test(e.message)) throw e;
    return deepJsonText(value, indent === undefined || indent <= 0 ? "" : " ".repeat(Math.min(indent, 10)));
  }
}

/** The value as JSON.stringify sees it: toJSON applied (Dates become strings). */
function prepared(v: unknown, key: string): unknown {
  if (typeof v === "object" && v !== null && typeof (v as { toJSON?: unknown }).toJSON === "function") return (v as { toJSON(k: string): unknown }).toJSON(key);
  if (typeof v === "bigint") throw new TypeError("Do not know how to serialize a BigInt");
  return v;
}

/** The text of a value that is not a container, or undefined where JSON.stringify leaves it out. */
function scalar(v: unknown): string | undefined {
  if (v === undefined || typeof v === "function" || typeof v === "symbol") return undefined;
  if (typeof v === "object" && v !== null) {
    // Boxed primitives, as JSON.stringify unwraps them.
    if (v instanceof Number || v instanceof String || v instanceof Boolean) return JSON.stringify(v.valueOf());
    return undefined;
  }
  return JSON.stringify(v);
}

function isContainer(v: unknown): v is object {
  return typeof v === "object" && v !== null && !(v instanceof Number || v instanceof String || v instanceof Boolean);
}

/** The walk without recursion (exported for the tests, which compare it with JSON.stringify). */
export function deepJsonText(root: unknown, gap: string): string {
  const out: string[] = [];
  const stack: Frame[] = [];
  const onPath = new Set<object>();
  const newline = (depth: number) => (gap === "" ? "" : "\n" + gap.repeat(depth));
  const open = (v: object): void => {
    if (onPath.has(v)) throw new TypeError("Converting circular structure to JSON");
    onPath.add(v);
    const keys = Array.isArray(v) ? null : Object.keys(v);
    out.push(keys === null ? "[" : "{");
    stack.push({ value: v, keys, i: 0, any: false });
  };
  const first = prepared(root, "");
  if (!isContainer(first)) return scalar(first) as string;
  open(first);
  while (stack.length > 0) {
    const f = stack[stack.length - 1] as Frame;
    const length = f.keys === null ? (f.value as unknown[]).length : f.keys.length;
    if (f.i === length) {
      stack.pop();
      onPath.delete(f.value);
      out.push((f.any ? newline(stack.length) : "") + (f.keys === null ? "]" : "}"));
      continue;
    }
    const index = f.i++;
    const key = f.keys === null ? String(index) : (f.keys[index] as string);
    const v = prepared((f.value as Record<string, unknown>)[key], key);
    const text = isContainer(v) ? null : scalar(v);
    // An object leaves out what JSON cannot hold; an array writes null in its place.
    if (f.keys !== null && text === undefined) continue;
    out.push((f.any ? "," : "") + newline(stack.length) + (f.keys === null ? "" : JSON.stringify(key) + (gap === "" ? ":" : ": ")));
    f.any = true;
    if (text === null) open(v as object);
    else out.push(text ?? "null");
  }
  return out.join("");
}
