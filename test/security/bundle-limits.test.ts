// The limits on what Forge writes and what it reads from a bundle (objects/limits.ts): writers
// refuse to make an object past them (so an export always re-imports), import refuses one
// without allocating it, fsck verifies an oversized object a store already holds by streaming
// it and reports it fine, and the JSON measure agrees with JSON.parse.
import fc from "fast-check";
import { describe, expect, it, onTestFinished } from "vitest";
import { openStore, type Store } from "../../src/index.js";
import { sha256 } from "../../src/objects/hash.js";
import { jsonShape, JsonShapeError } from "../../src/objects/json-shape.js";
import { MAX_BLOB_BYTES, MAX_JSON_VALUES, MAX_OBJECT_BYTES } from "../../src/objects/limits.js";
import { arrayNodeText, blobRaw, dirNodeText, fileChunksText, jsonNodeText } from "../../src/objects/node.js";
import { bufferSource } from "../../src/timeline/bundle-source.js";
import { scanBundle, storedObjects } from "../../src/timeline/bundle-records.js";
import { rejectsWith } from "../support/errors.js";
import { bomb, decode, encode, stored } from "./bundle-support.js";
import { backendOf } from "../../src/timeline/store-internals.js";

async function memory(): Promise<Store> {
  const store = await openStore("memory:");
  onTestFinished(() => store.close());
  return store;
}

/** A store holding one checkpoint of session "s" whose state root is `root`, and the bundle it exports. */
async function bundleWithRoot(raws: Buffer[], files?: Buffer[]): Promise<Buffer> {
  const store = await memory();
  const session = await store.session("s");
  await session.checkpoint({ placeholder: true });
  const { manifest, objects } = decode((await store.export({ session: "s" })).bytes);
  const all = new Map(objects);
  for (const raw of [...raws, ...(files ?? [])]) all.set(...stored(raw));
  const cp = manifest.sessions[0]?.checkpoints[0] as { stateRoot: string; filesRoot: string | null };
  cp.stateRoot = sha256(raws[raws.length - 1] as Buffer);
  if (files) cp.filesRoot = sha256(files[files.length - 1] as Buffer);
  return encode(manifest, all);
}

describe("writers stay within the limits", () => {
  it("refuses a state holding a string too big for one object, naming its path, and writes nothing", async () => {
    const store = await memory();
    const session = await store.session("big");
    const error = await rejectsWith(
      session.checkpoint({ log: { lines: 3, text: "x".repeat(MAX_OBJECT_BYTES) } }),
      "INVALID_STATE",
      /^state at \$\.log\.text is too big to store: its JSON would make one node of 64\.0 MiB, more than the 64 MiB any object may hold$/,
    );
    expect(error.data).toEqual({ path: ["log", "text"] });
    expect(await session.list()).toEqual([]);
    expect(await backendOf(store).countObjects()).toBe(0);
  });

  it("refuses a state whose one object has more keys than a node may hold values, naming the object", async () => {
    const store = await memory();
    const session = await store.session("wide");
    const index: Record<string, number> = {};
    for (let i = 0; i <= MAX_JSON_VALUES; i++) index[`k${i}`] = i;
    await rejectsWith(
      session.checkpoint({ meta: 1, index }),
      "INVALID_STATE",
      /^state at \$\.index is too big to store: the object's own keys and short values would make one node whose body holds more than 1,000,000 values, the most one node may hold$/,
    );
    expect(await backendOf(store).countObjects()).toBe(0);
  });

  it("refuses to store a file chunk over 1 MiB + 1 byte, naming it", async () => {
    const store = await memory();
    const raw = blobRaw(Buffer.alloc(MAX_BLOB_BYTES, 1));
    await rejectsWith(
      store.objects.putRaw(new Map([[sha256(raw), raw]])),
      "INVALID_STATE",
      new RegExp(`object ${sha256(raw)} \\(a "b" node\\) cannot be stored: it is 1.0 MiB, more than the 1 MiB \\+ 1 byte a file's bytes or chunk may hold`),
    );
  });

  it("refuses to export an oversized object an older Forge stored, rather than write a bundle no Forge imports", async () => {
    const store = await memory();
    const b = bomb(72);
    await backendOf(store).putObjects([{ hash: b.hash, data: b.stored }]);
    const files = Buffer.from(dirNodeText([[b.hash, "big.log", "f", 0o644, b.rawBytes - 1]]));
    await store.objects.putRaw(new Map([[sha256(files), files]]));
    await (await store.session("s")).checkpoint({ a: 1 }, { filesRoot: sha256(files) });
    await rejectsWith(
      store.export({ session: "s" }),
      "INVALID_STATE",
      new RegExp(`cannot export object ${b.hash}: it is 72.0 MiB, more than the 1 MiB \\+ 1 byte`),
    );
  });
});

describe("fsck with objects past the limits", () => {
  it("verifies an oversized object by streaming it and reports the store whole", async () => {
    const store = await memory();
    const b = bomb(128);
    await backendOf(store).putObjects([{ hash: b.hash, data: b.stored }]);
    const report = await store.fsck();
    expect(report).toMatchObject({ ok: true, objects: 1, corrupt: [] });
  });

  it("reports an oversized object whose bytes do not match its hash as corrupt", async () => {
    const store = await memory();
    const b = bomb(72);
    const wrong = "0".repeat(64);
    await backendOf(store).putObjects([{ hash: wrong, data: b.stored }]);
    const report = await store.fsck();
    expect(report.ok).toBe(false);
    expect(report.corrupt).toEqual([{ hash: wrong, error: `object ${wrong} is corrupt: its content hashes to ${b.hash}`, checkpoints: [] }]);
  });
});

describe("import refuses objects past the limits, without allocating them", () => {
  it("refuses a JSON node holding more values than a node may, naming it", async () => {
    const root = Buffer.from(jsonNodeText([], `[${"0,".repeat(MAX_JSON_VALUES)}0]`));
    const target = await memory();
    await rejectsWith(
      target.import(await bundleWithRoot([root])),
      "INVALID_BUNDLE",
      new RegExp(`object ${sha256(root)} is corrupt: its body holds more than 1,000,000 values, the most one node may hold`),
    );
  });

  it("refuses a raw-coded object record bigger than any object may be, before reading it", async () => {
    const store = await memory();
    await (await store.session("s")).checkpoint({ a: 1 });
    const bytes = (await store.export({ session: "s" })).bytes;
    const { manifest, objects } = decode(bytes);
    const big = Buffer.alloc(MAX_OBJECT_BYTES + 2);
    big[0] = 0;
    big[1] = 0x62;
    const bundle = encode(manifest, [...objects, ["ab".repeat(32), big] as const]);
    await rejectsWith(
      (await memory()).import(bundle),
      "INVALID_BUNDLE",
      /the object record at byte \d+ holds 64.0 MiB, more than any object may take \(64 MiB and its hash\)/,
    );
  });

  it("refuses an array chunk that does not hold an array, and a big file whose chunks are not the sizes it lists", async () => {
    const notArray = Buffer.from(jsonNodeText([], '{"not":"an array"}'));
    const arr = Buffer.from(arrayNodeText([[sha256(notArray), 1]]));
    const target = await memory();
    await rejectsWith(
      target.import(await bundleWithRoot([notArray, arr])),
      "INVALID_BUNDLE",
      new RegExp(`object ${sha256(arr)} lists ${sha256(notArray)} as a chunk of an array, but it is a JSON node that does not hold an array`),
    );

    const chunk = blobRaw(Buffer.from("twelve bytes"));
    const big = Buffer.from(fileChunksText([[sha256(chunk), 13]]));
    const dir = Buffer.from(dirNodeText([[sha256(big), "f.bin", "f", 0o644, 13]]));
    const state = Buffer.from(jsonNodeText([], "{}"));
    await rejectsWith(
      target.import(await bundleWithRoot([state], [chunk, big, dir])),
      "INVALID_BUNDLE",
      new RegExp(`object ${sha256(big)} lists ${sha256(chunk)} as a file chunk of 13 bytes, but it holds 12 bytes`),
    );
    expect(await target.listSessions()).toEqual([]);
  });

  it("refuses a bundle whose file changed between its check and its write", async () => {
    const store = await memory();
    await (await store.session("s")).checkpoint({ a: "x".repeat(5000) });
    const bytes = Buffer.from((await store.export({ session: "s" })).bytes);
    const source = bufferSource(bytes);
    const scanned = await scanBundle(source);
    bytes[bytes.length - 40] = (bytes[bytes.length - 40] as number) ^ 1; // inside the last object record
    await expect(async () => {
      for await (const _batch of storedObjects(source, scanned.objects));
    }).rejects.toThrow(/the file changed while it was being imported: object [0-9a-f]{64} is not what was checked/);
  });
});

describe("jsonShape", () => {
  const accepts = (text: string | Buffer): boolean => {
    const b = Buffer.from(text);
    try {
      jsonShape(b, 0, b.length, { maxValues: Infinity, maxDepth: Infinity });
      return true;
    } catch (e) {
      if (e instanceof JsonShapeError) return false;
      throw e;
    }
  };
  const parses = (text: string | Buffer): boolean => {
    try {
      JSON.parse(Buffer.from(text).toString("utf8"));
      return true;
    } catch {
      return false;
    }
  };

  it("accepts exactly what JSON.parse accepts, for JSON and for JSON with a character changed", () => {
    const edited = fc
      .tuple(fc.json(), fc.nat(), fc.nat({ max: 2 }), fc.constantFrom(...'{}[]:,"\\ 0123456789.eE+-tfnrul\u00e9\u0001\t\n\u2028x'))
      .map(([json, at, op, ch]) => {
        const i = json.length === 0 ? 0 : at % json.length;
        return op === 0 ? json.slice(0, i) + ch + json.slice(i) : op === 1 ? json.slice(0, i) + json.slice(i + 1) : json.slice(0, i) + ch + json.slice(i + 1);
      });
    fc.assert(
      fc.property(fc.oneof(fc.json(), edited), (text) => {
        expect(accepts(text), text).toBe(parses(text));
      }),
      { numRuns: 3000, seed: 4242 },
    );
    for (const text of [
      "-0",
      "0.0e-0",
      "1E+2",
      '"\\u00e9\\/"',
      " [ ] ",
      "01",
      "1.",
      ".5",
      "+1",
      "[1,]",
      '{"a":1,}',
      '"\\x"',
      "nul",
      "",
      '"\u0000"',
      "\ufeff1",
      "[]]",
    ]) {
      expect(accepts(text), text).toBe(parses(text));
    }
    // Bytes that are not UTF-8 decode to U+FFFD: JSON inside a string, not outside one.
    for (const bytes of [Buffer.from([0x22, 0xff, 0x22]), Buffer.from([0x22, 0xe2, 0x82, 0x22]), Buffer.from([0x5b, 0xc3, 0x5d])]) {
      expect(accepts(bytes), bytes.toString("hex")).toBe(parses(bytes));
    }
  });

  it("counts values and depth, and stops at the first value past a limit", () => {
    const b = Buffer.from('{"a":[1,{"b":null}],"c":"d"}');
    expect(jsonShape(b, 0, b.length, { maxValues: 100, maxDepth: 10 })).toEqual({ values: 6, depth: 3 });
    expect(() => jsonShape(b, 0, b.length, { maxValues: 5, maxDepth: 10 })).toThrow(/holds more than 5 values/);
    expect(() => jsonShape(b, 0, b.length, { maxValues: 100, maxDepth: 2 })).toThrow(/nests more than 2 levels deep/);
  });
});
