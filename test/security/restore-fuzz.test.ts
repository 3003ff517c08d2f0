// Fuzzing the restore as an attacker would: random files trees — files, folders, relative,
// absolute, dangling and chained links, duplicate and unsorted names, any modes — are put
// in the store as crafted objects and restored into a work tree that holds random links of
// its own. Whatever happens, nothing outside the work tree changes (a canary folder beside
// it: names, modes, bytes, mtimes), no link the restore creates resolves outside it, and a
// refusal is a Forge error that leaves the work tree as it was.
//
// A fixed seed and a bounded number of runs in `npm test`; FORGE_FUZZ_RUNS=N (and
// FORGE_FUZZ_SEED) for a longer run.
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ForgeError, openStore } from "../../src/index.js";
import { Workspace } from "../../src/domains/workspace/workspace.js";
import { sha256 } from "../../src/objects/hash.js";
import { blobRaw, dirNodeText, type DirEntry } from "../../src/objects/node.js";
import { tempDir } from "../workspace/support.js";

const RUNS = Number(process.env["FORGE_FUZZ_RUNS"] ?? 60);
const SEED = Number(process.env["FORGE_FUZZ_SEED"] ?? 20261125);

type Item =
  | { readonly kind: "file"; readonly name: string; readonly mode: number; readonly text: string }
  | { readonly kind: "dir"; readonly name: string; readonly mode: number; readonly items: readonly Item[] }
  | { readonly kind: "link"; readonly name: string; readonly target: string };

/** Few names, so folders often hold one name twice and links find what they point through. */
const NAMES = ["a", "b", "up", "gate", "x", "A"] as const;

/** Link texts: "{canary}", "{root}" are replaced by absolute paths. */
const TARGETS = [
  ".",
  "..",
  "../..",
  "../../..",
  "a",
  "a/b",
  "b/../..",
  "up/../canary",
  "up/up/canary",
  "../canary",
  "../../canary/notes.md",
  "gate/../canary",
  "x/../../canary",
  "missing/../../canary",
  "gate",
  "up",
  "A/..",
  "{canary}",
  "{canary}/inner",
  "{root}",
  "{root}/a",
  "{root}/../canary",
  "/",
] as const;

const name = fc.constantFrom(...NAMES);
const target = fc.constantFrom(...TARGETS);
const item: fc.Memo<Item> = fc.memo((n) =>
  n <= 1
    ? fc.oneof(
        fc.record({ kind: fc.constant("file" as const), name, mode: fc.integer({ min: 0, max: 0o777 }), text: fc.string({ maxLength: 8 }) }),
        fc.record({ kind: fc.constant("link" as const), name, target }),
      )
    : fc.oneof(
        { weight: 2, arbitrary: item(1) },
        {
          weight: 1,
          arbitrary: fc.record({
            kind: fc.constant("dir" as const),
            name,
            mode: fc.integer({ min: 0o500, max: 0o777 }),
            items: fc.array(item(n - 1), { maxLength: 4 }),
          }),
        },
      ),
);

const scenario = fc.record({
  /** The snapshot's root folder. */
  tree: fc.array(item(3), { maxLength: 6 }),
  /** Write entries in name order (as Forge does) or as generated (duplicates and disorder reach the reader). */
  sorted: fc.boolean(),
  /** What the work tree holds before the restore, links of its own included. */
  disk: fc.array(item(2), { maxLength: 5 }),
  /** Restore only this path (a top-level name; one the tree lacks is refused, NOT_FOUND, nothing changed), or everything. */
  only: fc.option(name, { nil: undefined }),
});

/** Stores a crafted files tree; returns its root hash. */
async function putTree(
  ws: Workspace,
  store: Awaited<ReturnType<typeof openStore>>,
  items: readonly Item[],
  sorted: boolean,
  paths: { canary: string; root: string },
): Promise<string> {
  const raws = new Map<string, Buffer>();
  const put = (raw: Buffer) => {
    const h = sha256(raw);
    raws.set(h, raw);
    return h;
  };
  const folder = (list: readonly Item[]): string => {
    const entries: DirEntry[] = list.map((it) => {
      if (it.kind === "file") return [put(blobRaw(Buffer.from(it.text))), it.name, "f", it.mode, Buffer.byteLength(it.text)];
      if (it.kind === "link") return ["", it.name, "l", 0o777, 0, fill(it.target, paths)];
      return [folder(it.items), it.name, "d", it.mode, 0];
    });
    if (sorted) {
      entries.sort((p, q) => (p[1] < q[1] ? -1 : p[1] > q[1] ? 1 : 0));
      const unique = entries.filter((e, i) => i === 0 || e[1] !== (entries[i - 1] as DirEntry)[1]);
      return put(Buffer.from(dirNodeText(unique)));
    }
    return put(Buffer.from(dirNodeText(entries)));
  };
  const root = folder(items);
  await store.objects.putRaw(raws);
  await ws.session.checkpoint({ kind: "forge.files", crafted: true }, { filesRoot: root, trigger: "files", message: "crafted" });
  return root;
}

function fill(text: string, paths: { canary: string; root: string }): string {
  return text.replace("{canary}", paths.canary).replace("{root}", paths.root);
}

/** Writes items into a folder on disk (later duplicates are skipped). */
function writeDisk(dir: string, items: readonly Item[], paths: { canary: string; root: string }): void {
  for (const it of items) {
    const at = join(dir, it.name);
    if (lstatSync(at, { throwIfNoEntry: false })) continue;
    if (it.kind === "file") writeFileSync(at, it.text);
    else if (it.kind === "link") symlinkSync(fill(it.target, paths), at);
    else {
      mkdirSync(at);
      writeDisk(at, it.items, paths);
    }
  }
}

/** Names, modes, bytes, mtimes and link texts of everything under `dir` (links not followed). */
function fingerprint(dir: string, skip = new Set<string>()): string[] {
  const out: string[] = [];
  const walk = (p: string, rel: string) => {
    const st = lstatSync(p);
    let line = `${rel} ${(st.mode & 0o7777).toString(8)} ${st.mtimeMs}`;
    if (st.isSymbolicLink()) line += ` -> ${readlinkSync(p)}`;
    else if (st.isFile()) line += ` ${sha256(readFileSync(p))}`;
    out.push(line);
    if (st.isDirectory()) for (const n of readdirSync(p).sort()) if (!(rel === "." && skip.has(n))) walk(join(p, n), `${rel}/${n}`);
  };
  walk(dir, ".");
  return out;
}

/** Links under `dir` (its .forge aside) that the kernel resolves to somewhere outside it, as "path -> text". */
function escapingLinks(dir: string): string[] {
  const real = realpathSync(dir);
  const bad: string[] = [];
  const walk = (p: string, rel: string) => {
    for (const n of readdirSync(p)) {
      if (rel === "" && n === ".forge") continue;
      const st = lstatSync(join(p, n));
      if (st.isSymbolicLink()) {
        let to: string;
        try {
          to = realpathSync(join(p, n));
        } catch {
          continue; // dangling or a loop: leads nowhere
        }
        if (to !== real && !to.startsWith(`${real}/`)) bad.push(`${rel}${n} -> ${readlinkSync(join(p, n))}`);
      } else if (st.isDirectory()) walk(join(p, n), `${rel}${n}/`);
    }
  };
  walk(dir, "");
  return bad;
}

/** Gives every folder owner rwx, so a run's tree can be removed whatever modes it restored. */
function openUp(path: string): void {
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (!st?.isDirectory()) return;
  chmodSync(path, 0o700 | (st.mode & 0o777));
  for (const n of readdirSync(path)) openUp(join(path, n));
}

describe("restore fuzz", () => {
  it(`never changes anything outside the work tree, over ${RUNS} random crafted trees restored onto random work trees (seed ${SEED})`, async () => {
    const base = realpathSync(tempDir("restore-fuzz").path);
    const canary = join(base, "canary");
    mkdirSync(join(canary, "inner"), { recursive: true });
    writeFileSync(join(canary, "notes.md"), "CANARY\n");
    writeFileSync(join(canary, "inner", "key.bin"), "secret");
    chmodSync(join(canary, "notes.md"), 0o640);
    chmodSync(join(canary, "inner"), 0o750);
    chmodSync(canary, 0o751);
    utimesSync(join(canary, "notes.md"), 1_000_000, 1_000_000);
    const store = await openStore(`sqlite:${join(base, "store.db")}`);
    const canaryBefore = fingerprint(canary);
    let run = 0;
    const outcomes = { restored: 0, refused: 0 };
    try {
      await fc.assert(
        fc.asyncProperty(scenario, async (s) => {
          const root = join(base, `ws${++run}`);
          mkdirSync(root);
          const paths = { canary, root };
          try {
            writeDisk(root, s.disk, paths);
            const escapingBefore = new Set(escapingLinks(root));
            const ws = await Workspace.open(store, { root, session: `fuzz-${run}`, retention: false });
            await ws.status(); // makes the workspace's .forge folder, so the root's mtime is the restore's to change
            await putTree(ws, store, s.tree, s.sorted, paths);
            const cp = (await ws.session.head()).checkpoint;
            if (!cp) throw new Error("the crafted checkpoint is missing");
            const before = fingerprint(root, new Set([".forge"]));
            let refused: unknown = null;
            try {
              await ws.restore(cp.id, s.only === undefined ? {} : { paths: [s.only] });
              outcomes.restored++;
            } catch (e) {
              refused = e;
              outcomes.refused++;
            }
            // Nothing outside: the canary as it was, and nothing new beside the work trees.
            expect(fingerprint(canary)).toEqual(canaryBefore);
            expect(
              readdirSync(base)
                .filter((n) => !/^ws\d+$/.test(n))
                .sort(),
            ).toEqual(["canary", "store.db", "store.db-shm", "store.db-wal"].filter((n) => readdirSync(base).includes(n)));
            // No link the restore made leads outside.
            const escaping = escapingLinks(root).filter((l) => !escapingBefore.has(l));
            expect(escaping).toEqual([]);
            if (refused !== null) {
              expect(refused, String(refused)).toBeInstanceOf(ForgeError);
              expect(["CORRUPT_OBJECT", "PATH_OUTSIDE_WORKSPACE", "NOT_FOUND"]).toContain((refused as ForgeError).code);
              expect(fingerprint(root, new Set([".forge"]))).toEqual(before);
            }
          } finally {
            openUp(root);
            rmSync(root, { recursive: true, force: true });
          }
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
    } finally {
      await store.close();
    }
    // The runs exercise both outcomes, or the generator has drifted.
    expect(outcomes.restored).toBeGreaterThan(0);
    expect(outcomes.refused).toBeGreaterThan(0);
  });
});
