// Mutation fuzz of bundle import. Real exported bundles (a reasoning-like state history with
// branches, tags and a milestone; a workspace snapshot with a symlink and a big chunked
// file; a partial export; an old version-1 manifest) are damaged — bytes flipped, cut short,
// records re-ordered, repeated, dropped, given lying lengths or spliced in from another
// bundle, manifests re-wired — and, in half the cases, given a matching end checksum so the
// damage reaches the inner checks. Every import must either succeed or refuse with
// INVALID_BUNDLE (store untouched) or IMPORT_CONFLICT; then fsck must find the store whole
// and every imported state and file must read back. No crash, no hang, no other error.
//
// A fixed seed and 800 runs (~10 s) in `npm test`; FORGE_FUZZ_RUNS=N (and FORGE_FUZZ_SEED)
// for a longer run.
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ForgeError, openStore, Workspace, type Store } from "../../src/index.js";
import { readFileObject, readTree } from "../../src/objects/file-tree.js";
import { makeTempDir, type TempDir } from "../support/temp.js";
import { decode, encode, fixChecksum, MAGIC, record, records, type LooseManifest } from "./bundle-support.js";
import { backendOf } from "../../src/timeline/store-internals.js";
import { noise } from "../workspace/support.js";

const RUNS = Number(process.env["FORGE_FUZZ_RUNS"] ?? 800);
const SEED = Number(process.env["FORGE_FUZZ_SEED"] ?? 20_251_125);

let tmp: TempDir;
let base: Buffer[] = [];
let runDir = 0;

async function sourceBundles(dir: string): Promise<Buffer[]> {
  const store = await openStore(`sqlite:${join(dir, "source.db")}`);
  try {
    const work = await store.session("work", { kind: "reasoning", metadata: { task: "fuzz" } });
    const hypotheses = Array.from({ length: 120 }, (_, i) => ({ id: `h${i}`, text: `hypothesis ${i} `.repeat(6), confidence: (i % 10) / 10 }));
    const state = (step: number) =>
      JSON.parse(
        JSON.stringify({ step, hypotheses: hypotheses.slice(0, 60 + step * 20), notes: "n".repeat(2500 + step), beliefs: { a: { b: { c: step } } } }).replace(
          '"beliefs"',
          '"__proto__":{"kept":"as data"},"beliefs"',
        ),
      ) as unknown;
    await work.checkpoint(state(1), { message: "one", tags: ["start"] });
    await work.checkpoint(state(2), { message: "two" });
    await work.checkpoint(state(3), { message: "three", metadata: { nested: { deep: [1, 2, 3] } } });
    await work.createMilestone("first-stretch", { from: "#1", to: "#3", description: "from one to three" });
    await work.restore("#2");
    await work.checkpoint(state(4), { message: "four, on a branch" });

    const root = join(dir, "ws");
    mkdirSync(join(root, "sub"), { recursive: true });
    writeFileSync(join(root, "a.txt"), "alpha\n");
    writeFileSync(join(root, "sub", "b.txt"), "beta\n");
    writeFileSync(join(root, "big.bin"), noise(1_300_000, 7));
    symlinkSync("sub/b.txt", join(root, "link"));
    const ws = await Workspace.open(store, { root, retention: false });
    await ws.snapshot("first");
    writeFileSync(join(root, "a.txt"), "alpha, changed\n");
    await ws.snapshot("second");

    const whole = (await store.export({ session: "work" })).bytes;
    const files = (await store.export({ session: "workspace" })).bytes;
    const partial = (await store.export({ session: "work", refs: ["#1", "#3"] })).bytes;
    const v1 = decode(whole);
    const v1Bytes = encode({ ...v1.manifest, version: 1, sessions: v1.manifest.sessions.map(({ milestones: _m, ...s }) => s) }, v1.objects);
    return [whole, files, partial, v1Bytes];
  } finally {
    await store.close();
  }
}

beforeAll(async () => {
  tmp = makeTempDir("bundle-fuzz");
  base = await sourceBundles(tmp.path);
});

afterAll(() => tmp.remove());

// ------------------------------------------------------------------ mutations
interface Rec {
  kind: string;
  payload: Buffer;
}

type RecordEdit =
  | { t: "swap"; i: number; j: number }
  | { t: "repeat"; i: number; j: number }
  | { t: "drop"; i: number }
  | { t: "splice"; from: number; i: number; j: number }
  | { t: "manifest"; edit: number; a: number; b: number };

type ByteEdit = { t: "flip"; at: number; xor: number } | { t: "truncate"; at: number } | { t: "length"; i: number; to: number };

const recordEdit: fc.Arbitrary<RecordEdit> = fc.oneof(
  fc.record({ t: fc.constant("swap" as const), i: fc.nat(), j: fc.nat() }),
  fc.record({ t: fc.constant("repeat" as const), i: fc.nat(), j: fc.nat() }),
  fc.record({ t: fc.constant("drop" as const), i: fc.nat() }),
  fc.record({ t: fc.constant("splice" as const), from: fc.nat(), i: fc.nat(), j: fc.nat() }),
  fc.record({ t: fc.constant("manifest" as const), edit: fc.nat(), a: fc.nat(), b: fc.nat() }),
);

const byteEdit: fc.Arbitrary<ByteEdit> = fc.oneof(
  fc.record({ t: fc.constant("flip" as const), at: fc.nat(), xor: fc.integer({ min: 1, max: 255 }) }),
  fc.record({ t: fc.constant("truncate" as const), at: fc.nat() }),
  fc.record({
    t: fc.constant("length" as const),
    i: fc.nat(),
    to: fc.oneof(fc.integer({ min: -40, max: 40 }), fc.constantFrom(0, 1, 32, 33, 0x7fffffff, 0xffffffff)),
  }),
);

/** The records of a bundle made by export (or by the mutations above, before byte edits). */
function parse(bytes: Buffer): Rec[] {
  return records(bytes)
    .filter((r) => r.kind !== "E")
    .map((r) => ({ kind: r.kind, payload: Buffer.from(r.payload) }));
}

function serialize(recs: readonly Rec[]): Buffer {
  return Buffer.concat([MAGIC, ...recs.map((r) => record(r.kind, r.payload)), record("E", Buffer.alloc(32))]);
}

const pick = <T>(list: readonly T[], i: number): T | undefined => (list.length === 0 ? undefined : list[i % list.length]);

/** Edits that re-wire a manifest: roots, parents, branches, HEAD, ids, seqs, milestones, metadata. */
function editManifest(m: LooseManifest, edit: number, a: number, b: number, hashes: readonly string[]): void {
  const sessions = m.sessions;
  const s = pick(sessions, a);
  if (!s) return;
  const cps = s.checkpoints;
  const cp = pick(cps, a);
  const other = pick(cps, b);
  const anyCp = pick(
    sessions.flatMap((x) => x.checkpoints),
    b,
  );
  switch (edit % 12) {
    case 0:
      if (cp) cp.stateRoot = pick(hashes, b) ?? cp.stateRoot;
      break;
    case 1:
      if (cp) cp.filesRoot = pick(hashes, b) ?? null;
      break;
    case 2:
      if (cp && anyCp) cp.parentId = anyCp.id;
      break;
    case 3:
      if (cp) cp.parentId = cp.id;
      break;
    case 4: {
      const br = pick(s.branches, b);
      if (br && anyCp) br.checkpointId = anyCp.id;
      break;
    }
    case 5:
      s["headBranch"] = ["main", "nowhere", null][b % 3];
      s["headCheckpoint"] = b % 2 === 0 ? null : (anyCp?.id ?? null);
      break;
    case 6:
      if (cp) cps.push({ ...cp });
      break;
    case 7:
      if (cp && other) cp.seq = other.seq;
      break;
    case 8: {
      const ms = s["milestones"];
      if (Array.isArray(ms) && ms[0] && anyCp) (ms[0] as Record<string, unknown>)[b % 2 === 0 ? "from" : "to"] = anyCp.id;
      break;
    }
    case 9:
      if (cp) cp["metadata"] = { deep: JSON.parse("[".repeat(200 + (b % 2000)) + "]".repeat(200 + (b % 2000))) as unknown };
      break;
    case 10: {
      const t = pick(sessions, b);
      if (t && t !== s) s.id = t.id;
      else if (cp && other) cp.id = other.id;
      break;
    }
    case 11:
      if (cp) cp["tags"] = [...((cp["tags"] as string[] | undefined) ?? []), "x".repeat(b % 300)];
      break;
  }
}

function applyRecordEdit(recs: Rec[], e: RecordEdit, bundles: readonly Buffer[]): void {
  const n = recs.length;
  if (n === 0) return;
  switch (e.t) {
    case "swap": {
      const [x, y] = [e.i % n, e.j % n];
      [recs[x], recs[y]] = [recs[y] as Rec, recs[x] as Rec];
      return;
    }
    case "repeat":
      recs.splice(e.j % (n + 1), 0, { ...(recs[e.i % n] as Rec) });
      return;
    case "drop":
      recs.splice(e.i % n, 1);
      return;
    case "splice": {
      const donor = parse(bundles[e.from % bundles.length] as Buffer);
      const r = pick(donor, e.i);
      if (r) recs.splice(e.j % (n + 1), 0, r);
      return;
    }
    case "manifest": {
      const at = recs.findIndex((r) => r.kind === "M");
      if (at < 0) return;
      const m = JSON.parse((recs[at] as Rec).payload.toString("utf8")) as LooseManifest;
      const hashes = recs.filter((r) => r.kind === "O").map((r) => r.payload.toString("hex", 0, 32));
      editManifest(m, e.edit, e.a, e.b, hashes);
      recs[at] = { kind: "M", payload: Buffer.from(JSON.stringify(m)) };
      return;
    }
  }
}

function applyByteEdit(bytes: Buffer, e: ByteEdit): Buffer {
  switch (e.t) {
    case "flip": {
      const out = Buffer.from(bytes);
      const at = e.at % out.length;
      out[at] = (out[at] as number) ^ e.xor;
      return out;
    }
    case "truncate":
      return bytes.subarray(0, e.at % bytes.length);
    case "length": {
      // Record headers as they lie now, walked leniently.
      const heads: number[] = [];
      for (let pos = MAGIC.length; pos + 5 <= bytes.length; pos += 5 + bytes.readUInt32BE(pos + 1)) heads.push(pos);
      const at = pick(heads, e.i);
      if (at === undefined) return bytes;
      const out = Buffer.from(bytes);
      const len = out.readUInt32BE(at + 1);
      const to = Math.abs(e.to) > 1000 ? e.to : len + e.to;
      out.writeUInt32BE(Math.max(0, Math.min(0xffffffff, to)), at + 1);
      return out;
    }
  }
}

// ------------------------------------------------------------------ the property
interface Snapshot {
  readonly sessions: string;
  readonly objects: number;
}

async function snapshot(store: Store): Promise<Snapshot> {
  const sessions = await store.listSessions();
  const detail = await Promise.all(sessions.map(async (s) => [s.name, (await (await store.getSession(s.name)).list()).map((c) => c.id)]));
  return { sessions: JSON.stringify(detail), objects: await backendOf(store).countObjects() };
}

/** Reads back every state and every file of every checkpoint, and walks every history to its start; any error is a finding. */
async function readEverything(store: Store): Promise<void> {
  for (const info of await store.listSessions()) {
    const session = await store.getSession(info.name);
    const list = await session.list();
    const parent = new Map(list.map((c) => [c.id, c.parentId]));
    for (const c of list) {
      let id: string | null | undefined = c.id;
      for (let steps = 0; id != null; steps++, id = parent.get(id)) expect(steps, `the history of ${c.id} runs in a circle`).toBeLessThanOrEqual(list.length);
    }
    for (const cp of list) {
      await session.state(cp.id);
      if (cp.filesRoot === null) continue;
      const tree = await readTree(store.objects, cp.filesRoot);
      for (const [path, f] of tree.files) {
        if (f.type !== "f") continue;
        const bytes = await readFileObject(store.objects, f.hash);
        expect(bytes.length, `${path} of ${cp.id}`).toBe(f.size);
      }
    }
  }
}

describe("bundle import under mutation", () => {
  it(
    `each of ${RUNS} damaged bundles is imported whole or refused with a ForgeError, and the store stays whole`,
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.nat(),
          fc.array(recordEdit, { maxLength: 3 }),
          fc.array(byteEdit, { maxLength: 2 }),
          fc.boolean(),
          fc.nat({ max: 2 }),
          fc.boolean(),
          async (which, recEdits, byteEdits, fixSum, preload, fromFile) => {
            if (recEdits.length + byteEdits.length === 0) return;
            const original = base[which % base.length] as Buffer;
            const recs = parse(original);
            for (const e of recEdits) applyRecordEdit(recs, e, base);
            let bytes = serialize(recs);
            for (const e of byteEdits) bytes = applyByteEdit(bytes, e);
            if (fixSum || byteEdits.length === 0) bytes = fixChecksum(bytes);

            const dir = join(tmp.path, `run-${++runDir}`);
            mkdirSync(dir);
            const store = await openStore(`sqlite:${join(dir, "forge.db")}`);
            try {
              // A third of the runs import into a store that already holds one honest bundle.
              if (preload === 0) await store.import(original);
              const before = await snapshot(store);
              let outcome = "imported";
              try {
                if (fromFile) {
                  writeFileSync(join(dir, "in.bundle"), bytes);
                  await store.importFile(join(dir, "in.bundle"));
                } else {
                  await store.import(bytes);
                }
              } catch (e) {
                if (!(e instanceof ForgeError)) throw e;
                expect(["INVALID_BUNDLE", "IMPORT_CONFLICT"], e.message).toContain(e.code);
                outcome = e.code;
                if (e.code === "INVALID_BUNDLE") expect(await snapshot(store)).toEqual(before);
              }
              const report = await store.fsck();
              expect(report.ok, `${outcome}; fsck: ${JSON.stringify(report).slice(0, 600)}`).toBe(true);
              await readEverything(store);
            } finally {
              await store.close();
            }
          },
        ),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
    },
    Math.max(600_000, RUNS * 100),
  );
});
