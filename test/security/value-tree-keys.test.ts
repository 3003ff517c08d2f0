// A value tree read back from a store is data: a child reference whose path runs through
// "__proto__" or "constructor"/"prototype" either lands on an own key the body really has,
// or the node is refused as corrupt. Nothing a stored tree says can reach Object.prototype.
import { describe, expect, it } from "vitest";
import { openStore } from "../../src/index.js";
import { sha256 } from "../../src/objects/hash.js";
import { jsonNodeText, type JsonRef } from "../../src/objects/node.js";
import { rejectsWith } from "../support/errors.js";

const MARK = "zq_value_tree_marker";

describe("value trees read from a store", () => {
  it.each([
    ["__proto__", [["cfg", "__proto__", MARK]], `{"cfg":{"level":1},"items":[0]}`],
    ["constructor.prototype", [["cfg", "constructor", "prototype", MARK]], `{"cfg":{"level":1},"items":[0]}`],
    ["an array index past the end", [["items", 5]], `{"cfg":{"level":1},"items":[0]}`],
    ["a key the body lacks", [["cfg", "missing"]], `{"cfg":{"level":1},"items":[0]}`],
    ["a path that ends on a value, not a placeholder", [["cfg", "level"]], `{"cfg":{"level":1},"items":[0]}`],
  ] as const)("refuses a node whose child path runs through %s, and Object.prototype stays clean", async (_label, paths, body) => {
    const store = await openStore("memory:");
    try {
      const child = Buffer.from(jsonNodeText([], `"armed"`));
      const h = sha256(child);
      const root = Buffer.from(
        jsonNodeText(
          paths.map((p) => [h, ...p] as JsonRef),
          body,
        ),
      );
      await store.objects.putRaw(
        new Map([
          [h, child],
          [sha256(root), root],
        ]),
      );
      await rejectsWith(store.objects.readValue(sha256(root)), "CORRUPT_OBJECT", /child reference/);
      expect(MARK in Object.prototype).toBe(false);
      expect(({} as Record<string, unknown>)[MARK]).toBeUndefined();
    } finally {
      await store.close();
    }
  });

  it("keeps __proto__, constructor and prototype keys of real data as own keys, split into child objects or not", async () => {
    const store = await openStore("memory:");
    try {
      const big = "x".repeat(3000);
      const text = `{"profile":{"__proto__":{"note":"${big}"},"constructor":{"prototype":{"blob":"${big}"}},"plain":{"__proto__":1}}}`;
      const state = JSON.parse(text) as Record<string, unknown>;
      const session = await store.session("keys");
      const cp = await session.checkpoint(state);
      const back = (await session.state(cp.id)) as Record<string, Record<string, unknown>>;
      expect(JSON.stringify(back)).toBe(text);
      expect(Object.keys(back["profile"] as object)).toEqual(["__proto__", "constructor", "plain"]);
      expect(Object.getPrototypeOf(back["profile"])).toBe(Object.prototype);
      expect("note" in Object.prototype).toBe(false);
    } finally {
      await store.close();
    }
  });

  it("a bundle carries checkpoint and session metadata with __proto__ and constructor keys as data", async () => {
    const from = await openStore("memory:");
    const to = await openStore("memory:");
    try {
      const metadata = JSON.parse(`{"__proto__":{"x":1},"constructor":{"prototype":{"y":2}},"a":1}`) as Record<string, unknown>;
      const cp = await (await from.session("meta")).checkpoint({ n: 1 }, { metadata });
      const bundle = await from.export({ session: "meta" });
      await to.import(bundle.bytes);
      const back = await (await to.session("meta")).get(cp.id);
      expect(JSON.stringify(back.metadata)).toBe(JSON.stringify(metadata));
      expect("x" in Object.prototype).toBe(false);
    } finally {
      await from.close();
      await to.close();
    }
  });
});
