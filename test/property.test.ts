// Property: for any JSON value x, restoring a checkpoint of x gives back x — on every
// backend, for values of random shape, deep nesting, unicode (astral characters and lone
// surrogates included), long arrays (chunked into content-defined chunks) and long
// strings (stored as objects of their own).
//
// Why -0 is mapped to 0: a checkpoint holds JSON, and JSON has no negative zero —
// JSON.stringify(-0) is "0" — so a -0 comes back as 0. isDeepStrictEqual tells -0 from 0
// (it compares numbers with Object.is), so a generated -0 would fail the property for a
// reason that is JSON's, not Forge's. For the same reason objects are generated with the
// ordinary prototype (fast-check's record and dictionary make null-prototype objects by
// default): JSON has no prototypes, a restored object is a plain one, and isDeepStrictEqual
// compares prototypes. Generated values are JSON values in every other way.
import { isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Session } from "../src/index.js";
import type { StoreUnderTest } from "./contract/backend-contract.js";
import { fileStore, memoryStore, sqliteStore } from "./support/stores.js";

// What the encoding keeps of any JSON value, with secret redaction off: random strings can look
// like a credential ("PWD:…"), and redaction is specified and tested on its own (test/redact/).
const EXACT = { redaction: { enabled: false } } as const;

type Json = fc.JsonValue;

/** `v` with every -0 replaced by 0 (JSON cannot hold -0; see the top of this file). */
function withoutNegativeZero(v: Json): Json {
  if (typeof v === "number") return Object.is(v, -0) ? 0 : v;
  if (Array.isArray(v)) return v.map(withoutNegativeZero);
  if (v !== null && typeof v === "object") {
    const out: { [key: string]: Json } = {};
    for (const [k, x] of Object.entries(v)) {
      // defineProperty, not assignment: fast-check generates "__proto__" keys, and
      // `out["__proto__"] = x` would set out's prototype instead of adding the key.
      if (x !== undefined) Object.defineProperty(out, k, { value: withoutNegativeZero(x), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return v;
}

const json = (constraints: Parameters<typeof fc.jsonValue>[0]) => fc.jsonValue(constraints).map(withoutNegativeZero);

/** Any JSON value: objects, arrays, numbers, strings (any UTF-16, lone surrogates too), booleans, null. */
const anyJson = fc.oneof(json({ maxDepth: 6, depthSize: "medium" }), json({ maxDepth: 4, depthSize: "small", stringUnit: "binary" }));

/** A value nested 55–65 levels deep, alternating objects and arrays at random, with siblings on the way down. */
const deeplyNested = fc
  .tuple(
    fc.array(
      fc.record({ asArray: fc.boolean(), key: fc.string({ unit: "grapheme", maxLength: 6 }), sibling: json({ maxDepth: 1 }) }, { noNullPrototype: true }),
      { minLength: 55, maxLength: 65 },
    ),
    json({ maxDepth: 2 }),
  )
  .map(([levels, leaf]) =>
    levels.reduce<Json>((inner, level) => (level.asArray ? [level.sibling, inner] : { sibling: level.sibling, [`k${level.key}`]: inner }), leaf),
  );

const astral = fc.integer({ min: 0x1_0000, max: 0x10_ffff }).map((cp) => String.fromCodePoint(cp));
const unicodeText = fc
  .array(fc.oneof(astral, fc.string({ unit: "grapheme", maxLength: 6 }), fc.string({ unit: "binary", maxLength: 3 })), { maxLength: 40 })
  .map((parts) => parts.join(""));
/** Objects whose keys and strings mix astral characters, composed graphemes and arbitrary UTF-16. */
const unicodeHeavy = fc.dictionary(unicodeText, fc.oneof(unicodeText, fc.array(unicodeText, { maxLength: 30 })), {
  maxKeys: 12,
  noNullPrototype: true,
});

const arrayItem = fc.oneof(
  fc.integer(),
  fc.string({ maxLength: 24 }),
  fc.record({ id: fc.nat(), label: fc.string({ maxLength: 12 }), done: fc.boolean() }, { noNullPrototype: true }),
  json({ maxDepth: 2 }),
);
/** Long arrays, as a whole state or inside one. */
const longArrays = fc.oneof(
  fc.array(arrayItem, { minLength: 2_000, maxLength: 20_000 }),
  fc.record({ name: fc.string(), items: fc.array(arrayItem, { minLength: 2_000, maxLength: 20_000 }) }, { noNullPrototype: true }),
);

const bigString = fc.string({ unit: "grapheme", minLength: 10_241, maxLength: 40_000 });
/** Strings over 10 KB, as a whole state or next to other values. */
const bigStrings = fc.oneof(
  bigString,
  fc.record({ body: bigString, title: fc.string(), parts: fc.array(bigString, { maxLength: 2 }) }, { noNullPrototype: true }),
);

/** Shrinking a 20,000-item counterexample takes minutes: report the first one as found. */
const noShrinking = { endOnFailure: true } as const;

interface Plan {
  readonly name: string;
  readonly make: () => Promise<StoreUnderTest>;
  /** Runs per arbitrary: fewer for the persistent backends, whose writes are fsynced. */
  readonly runs: { readonly any: number; readonly deep: number; readonly unicode: number; readonly arrays: number; readonly strings: number };
}

const plans: Plan[] = [
  { name: "memory", make: () => memoryStore(EXACT), runs: { any: 500, deep: 100, unicode: 200, arrays: 20, strings: 40 } },
  { name: "sqlite", make: () => sqliteStore(EXACT), runs: { any: 200, deep: 50, unicode: 100, arrays: 8, strings: 15 } },
  { name: "file", make: () => fileStore(EXACT), runs: { any: 100, deep: 30, unicode: 60, arrays: 5, strings: 10 } },
];

for (const plan of plans) {
  describe(`restore(checkpoint(x)) deep-equals x on the ${plan.name} backend`, () => {
    let under: StoreUnderTest;
    let session: Session;

    beforeAll(async () => {
      under = await plan.make();
      session = await under.store.session("property");
    });
    afterAll(async () => {
      await under.cleanup();
    });

    async function roundTrips(x: Json): Promise<void> {
      const cp = await session.checkpoint(x);
      const { state } = await session.restore(cp.id);
      expect(isDeepStrictEqual(state, x)).toBe(true);
    }

    it("for JSON values of any shape", async () => {
      await fc.assert(fc.asyncProperty(anyJson, roundTrips), { numRuns: plan.runs.any });
    });

    it("for values nested about 60 levels deep", async () => {
      await fc.assert(fc.asyncProperty(deeplyNested, roundTrips), { numRuns: plan.runs.deep });
    });

    it("for unicode keys and strings, astral characters and lone surrogates included", async () => {
      await fc.assert(fc.asyncProperty(unicodeHeavy, roundTrips), { numRuns: plan.runs.unicode });
    });

    it("for arrays of 2,000 to 20,000 items", async () => {
      await fc.assert(fc.asyncProperty(longArrays, roundTrips), { numRuns: plan.runs.arrays, ...noShrinking });
    });

    it("for strings over 10 KB", async () => {
      await fc.assert(fc.asyncProperty(bigStrings, roundTrips), { numRuns: plan.runs.strings, ...noShrinking });
    });
  });
}

describe("what a checkpoint records of any JSON value", () => {
  let under: StoreUnderTest;
  let session: Session;

  beforeAll(async () => {
    under = await memoryStore(EXACT);
    session = await under.store.session("encoding");
  });
  afterAll(async () => {
    await under.cleanup();
  });

  const shapes = fc.oneof(anyJson, deeplyNested, unicodeHeavy, fc.array(arrayItem, { minLength: 2_000, maxLength: 6_000 }));

  it("restore gives back the same JSON text: key order is kept", async () => {
    await fc.assert(
      fc.asyncProperty(shapes, async (x) => {
        const cp = await session.checkpoint(x);
        expect(JSON.stringify(await session.state(cp.id))).toBe(JSON.stringify(x));
      }),
      { numRuns: 150, ...noShrinking },
    );
  });

  it("sizes.logicalBytes is the length of the state's JSON text", async () => {
    await fc.assert(
      fc.asyncProperty(shapes, async (x) => {
        const cp = await session.checkpoint(x);
        expect(cp.sizes.logicalBytes).toBe(JSON.stringify(x).length);
      }),
      { numRuns: 150, ...noShrinking },
    );
  });
});
