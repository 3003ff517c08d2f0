// Values as deep as JSON.parse builds them are stored and given back exactly. JSON.parse
// has no depth limit, JSON.stringify runs out of stack a few thousand levels down, and so
// did Forge's encoder (it refused anything past about 1,500 levels). The encoder now
// encodes such a state from the bottom up, which must give the very tree the recursive
// pass gives; the CLI and the MCP server write JSON that deep with a walk of their own,
// which must give JSON.stringify's text exactly.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { deepJsonText, jsonText } from "../src/core/json-text.js";
import { openStore, type Store } from "../src/index.js";
import { encodeTree, encodeTreeBottomUp, type TreeParams } from "../src/objects/value-encoder.js";
import { startUi } from "../src/ui/server.js";
import { forge, initStore, json, ok } from "./support/cli.js";
import { makeTempDir, type TempDir } from "./support/temp.js";

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Small thresholds so that the levels of a deep value split and chunk. */
const TINY: TreeParams = { splitBytes: 40, chunkArrayBytes: 120, chunkTargetBytes: 60, maxFanout: 4 };

/** `{"a":[{"a":[…1…]}]}`, `levels` containers deep, built as text so nothing here recurses. */
function deepText(levels: number, leaf = "1"): string {
  const pairs = Math.ceil(levels / 2);
  return '{"a":['.repeat(pairs) + leaf + "]}".repeat(pairs);
}

/** Equality by an explicit walk (isDeepStrictEqual and expect().toEqual recurse). */
function sameJson(a: unknown, b: unknown): boolean {
  const todo: [unknown, unknown][] = [[a, b]];
  while (todo.length > 0) {
    const [x, y] = todo.pop() as [unknown, unknown];
    if (typeof x !== "object" || x === null || typeof y !== "object" || y === null) {
      if (x !== y) return false;
      continue;
    }
    if (Array.isArray(x) !== Array.isArray(y)) return false;
    const kx = Object.keys(x);
    const ky = Object.keys(y);
    if (kx.length !== ky.length || kx.some((k, i) => k !== ky[i])) return false;
    for (const k of kx) todo.push([(x as Record<string, unknown>)[k], (y as Record<string, unknown>)[k]]);
  }
  return true;
}

/** A chain `levels` deep where every level also holds generated siblings (so the chain's nodes split, chunk and share). */
const deepValue = (minLevels: number, maxLevels: number): fc.Arbitrary<Json> =>
  fc
    .record({
      levels: fc.integer({ min: minLevels, max: maxLevels }),
      siblings: fc.array(fc.oneof(fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>, fc.string({ minLength: 30, maxLength: 80 })), {
        minLength: 1,
        maxLength: 12,
      }),
      shape: fc.array(fc.nat(4), { minLength: 1, maxLength: 16 }),
      leaf: fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json>,
    })
    .map(({ levels, siblings, shape, leaf }) => {
      let v: Json = leaf;
      for (let i = 0; i < levels; i++) {
        const s = siblings[i % siblings.length] as Json;
        switch (shape[i % shape.length]) {
          case 0:
            v = [v];
            break;
          case 1:
            v = { a: v };
            break;
          case 2:
            v = [s, v, i];
            break;
          case 3:
            v = { before: s, next: v, n: i };
            break;
          default:
            // A long run of small items beside the chain: chunked under TINY.
            v = Array.from({ length: 20 }, (_, k) => (k === 10 ? v : k));
        }
      }
      return v;
    });

describe("the encoder on deep values", () => {
  for (const [name, params] of [
    ["default thresholds", undefined],
    ["tiny thresholds (every level splits and chunks)", TINY],
  ] as const) {
    it(`encodes from the bottom up exactly the tree the recursive pass gives, with ${name}`, () => {
      fc.assert(
        fc.property(deepValue(260, 700), (v) => {
          const recursive = encodeTree(v, new Set(), undefined, params);
          const bottomUp = encodeTreeBottomUp(v, new Set(), undefined, params);
          expect(bottomUp.root).toBe(recursive.root);
          expect([...bottomUp.fresh.keys()].sort()).toEqual([...recursive.fresh.keys()].sort());
          expect(bottomUp.logicalBytes).toBe(JSON.stringify(v).length);
          // The memo either pass leaves serves the other: an edit then costs the same tree.
          const edited = { top: v, extra: 1 };
          expect(encodeTreeBottomUp(edited, new Set(), recursive.memo, params).root).toBe(encodeTree(edited, new Set(), bottomUp.memo, params).root);
        }),
        { numRuns: 40, endOnFailure: true },
      );
    });
  }

  it("takes a value far deeper than the stack, and finds a bad value or a cycle deep inside one by its path", () => {
    const deep = JSON.parse(deepText(100_000)) as Json;
    const encoded = encodeTree(deep, new Set());
    expect(encoded.logicalBytes).toBe(deepText(100_000).length);
    expect(encodeTree(JSON.parse(deepText(100_000)), new Set()).root).toBe(encoded.root);

    const withFunction = JSON.parse(deepText(6_000, '{"f":0}')) as Json;
    let at: Record<string, unknown> = withFunction as Record<string, unknown>;
    while (!("f" in at)) at = (at["a"] as unknown[])[0] as Record<string, unknown>;
    at["f"] = () => 1;
    expect(() => encodeTree(withFunction, new Set())).toThrow(
      /^state at (\$)(\.a\[0\]){6}…\(5983 levels\)…\[0\](\.a\[0\]){2}\.f is a function, which JSON cannot hold$/,
    );

    const cycle = JSON.parse(deepText(6_000, "[]")) as Json;
    let inner: unknown = cycle;
    while (!Array.isArray(inner) || inner.length > 0) inner = Array.isArray(inner) ? inner[0] : (inner as Record<string, unknown>)["a"];
    (inner as unknown[]).push(cycle);
    expect(() => encodeTree(cycle, new Set())).toThrow(/^state at \$\.a\[0\].*\[0\] contains itself \(a cycle\), which JSON cannot hold$/);
  });
});

describe("deep values through a store", () => {
  let dir: TempDir;
  let store: Store;
  afterEach(async () => {
    await store.close();
    dir.remove();
  });

  it("stores and gives back a state 20,000 levels deep, and compares two by the one value that differs", async () => {
    dir = makeTempDir("deep");
    store = await openStore(`sqlite:${join(dir.path, "forge.db")}`);
    const session = await store.session("deep");
    const first = await session.checkpoint(JSON.parse(deepText(20_000, '{"leaf":1}')), { message: "deep" });
    const second = await session.checkpoint(JSON.parse(deepText(20_000, '{"leaf":2}')), { message: "one leaf changed" });

    expect(sameJson(await session.state(first.id), JSON.parse(deepText(20_000, '{"leaf":1}')))).toBe(true);
    expect(sameJson(await session.state(second.id), JSON.parse(deepText(20_000, '{"leaf":2}')))).toBe(true);
    // A second reader, with no memo of the states it did not write.
    const reader = await openStore(`sqlite:${join(dir.path, "forge.db")}`);
    try {
      expect(sameJson(await (await reader.session("deep")).state(first.id), JSON.parse(deepText(20_000, '{"leaf":1}')))).toBe(true);
    } finally {
      await reader.close();
    }

    const { changes } = await session.compare(first.id, second.id);
    expect(changes.map((c) => [c.kind, c.path.length, c.at])).toEqual([
      ["changed", 20_001, expect.stringMatching(/^a\[0\](\.a\[0\]){5}…\(19983 levels\)…\[0\](\.a\[0\]){2}\.leaf$/)],
    ]);

    // The web page's API gives the state back too (its JSON is written without recursion).
    const ui = await startUi(store, { port: 0 });
    try {
      const res = await fetch(`http://127.0.0.1:${ui.port}/api/sessions/deep/checkpoints/${first.id}`, { headers: { Authorization: `Bearer ${ui.token}` } });
      expect(res.status).toBe(200);
      const body = JSON.parse(await res.text()) as { view: { kind: string; state: unknown } };
      expect(body.view.kind).toBe("json");
      expect(sameJson(body.view.state, JSON.parse(deepText(20_000, '{"leaf":1}')))).toBe(true);
    } finally {
      await ui.close();
    }
  });
});

describe("JSON text of any depth", () => {
  it("is JSON.stringify's text exactly, compact and indented", () => {
    const extra = fc.oneof(
      fc.constant(undefined),
      fc.constant(new Date(0)),
      fc.constant(() => 1),
      fc.double(),
    );
    const value = fc.letrec<{ v: unknown }>((tie) => ({
      v: fc.oneof(
        { depthSize: "small" },
        fc.jsonValue({ maxDepth: 1 }),
        extra,
        fc.array(tie("v"), { maxLength: 5 }),
        fc.dictionary(fc.string(), tie("v"), { maxKeys: 5 }),
      ),
    })).v;
    fc.assert(
      fc.property(value, (v) => {
        fc.pre(JSON.stringify(v) !== undefined);
        expect(deepJsonText(v, "")).toBe(JSON.stringify(v));
        expect(deepJsonText(v, "  ")).toBe(JSON.stringify(v, null, 2));
      }),
      { numRuns: 2_000 },
    );
  });

  it("writes a value 100,000 levels deep that JSON.parse reads back, and refuses a cycle as JSON.stringify does", () => {
    const text = deepText(100_000);
    expect(() => JSON.stringify(JSON.parse(text))).toThrow(RangeError);
    expect(jsonText(JSON.parse(text))).toBe(text);
    const cyclic: unknown[] = [JSON.parse(deepText(10_000))];
    cyclic.push(cyclic);
    expect(() => jsonText(cyclic)).toThrow(/circular/);
  });
});

describe("deep values through the CLI", () => {
  it("a state 5,000 levels deep: create, show --json, restore --output, export and import give it back byte for byte", async () => {
    const dir = makeTempDir("deep-cli");
    try {
      const here = join(dir.path, "here");
      const there = join(dir.path, "there");
      await initStore(here);
      await initStore(there);
      // Deeper than JSON.stringify reaches in a fresh node process (about 4,000 levels of arrays).
      const text = deepText(5_000, '{"leaf":"x"}');
      writeFileSync(join(here, "deep.json"), text);
      ok(forge(here, ["checkpoint", "create", "--state", "deep.json", "deep"]));

      const shown = json<{ state: unknown }>(forge(here, ["checkpoint", "show", "HEAD", "--json"]));
      expect(jsonText(shown.state)).toBe(text);
      ok(forge(here, ["checkpoint", "restore", "HEAD", "--output", "back.json"]));
      expect(jsonText(JSON.parse((await import("node:fs")).readFileSync(join(here, "back.json"), "utf8")))).toBe(text);

      ok(forge(here, ["checkpoint", "export", "--output", join(dir.path, "deep.bundle")]));
      ok(forge(there, ["checkpoint", "import", join(dir.path, "deep.bundle")]));
      ok(forge(there, ["checkpoint", "restore", "HEAD", "--output", "back.json"]));
      expect(jsonText(JSON.parse((await import("node:fs")).readFileSync(join(there, "back.json"), "utf8")))).toBe(text);
    } finally {
      dir.remove();
    }
  });
});
