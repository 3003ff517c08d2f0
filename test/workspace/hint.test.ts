// A snapshot told which paths changed (`snapshotIfChanged(…, { changed })`, what `forge
// watch` passes from its file events) lists only the folders holding them and takes the
// rest from the last walk. Held to giving exactly the tree a full walk gives, over rounds of
// random changes, and to walking everything whenever the hint cannot be trusted.
import { chmodSync, lstatSync, mkdirSync, renameSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildTree, readTree, type Tree } from "../../src/objects/file-tree.js";
import type { Workspace } from "../../src/domains/workspace/workspace.js";
import type { Store } from "../../src/index.js";
import { rejectsWith } from "../support/errors.js";
import { put, workspaceBench } from "./support.js";

/** The root hash of `tree` encoded from scratch: no directory hash taken from anywhere. */
function rootFromScratch(tree: Tree): string {
  return buildTree({ files: new Map(tree.files), dirs: new Map([...tree.dirs].map(([p, d]) => [p, { mode: d.mode }])) }).root;
}

async function stored(store: Store, root: string | null | undefined): Promise<Tree> {
  if (!root) throw new Error("the checkpoint carries no files");
  return readTree(store.objects, root);
}

/** The root a full walk gives now, by a Workspace that has never walked (so it cannot use a hint). */
async function fullWalkRoot(open: () => Promise<Workspace>): Promise<string> {
  return rootFromScratch((await (await open()).treeOf("working")).tree);
}

async function headRoot(ws: Workspace): Promise<string> {
  const head = (await ws.session.head()).checkpoint;
  if (!head?.filesRoot) throw new Error("no snapshot yet");
  return head.filesRoot;
}

const at = (root: string, path: string) => {
  try {
    return lstatSync(join(root, path));
  } catch {
    return undefined;
  }
};

/** The first folder on the way to `path` (or `path` itself) that does not exist yet: what a watcher hears about when it is made. */
function firstMissing(root: string, path: string): string {
  const parts = path.split("/");
  for (let i = 1; i <= parts.length; i++) {
    const p = parts.slice(0, i).join("/");
    if (!at(root, p)) return p;
  }
  return path;
}

describe("snapshots from a hint of the changed paths", () => {
  it("gives exactly the tree a full walk gives, over rounds of random changes hinted as a watcher hears them (property)", async () => {
    const segment = fc.constantFrom("a", "b", "c d");
    const rel = fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => parts.join("/"));
    const op = fc.oneof(
      { weight: 4, arbitrary: fc.record({ kind: fc.constant("write" as const), path: rel, data: fc.string({ maxLength: 12 }), exec: fc.boolean() }) },
      fc.record({ kind: fc.constant("mkdir" as const), path: rel }),
      { weight: 2, arbitrary: fc.record({ kind: fc.constant("delete" as const), path: rel }) },
      fc.record({ kind: fc.constant("chmod" as const), path: rel, open: fc.boolean() }),
      fc.record({ kind: fc.constant("link" as const), path: rel, target: rel }),
      fc.record({ kind: fc.constant("rename" as const), path: rel, to: rel }),
      // Ignore files change what is ignored below them: such a hint must make a full walk.
      fc.record({ kind: fc.constant("ignore" as const), dir: fc.option(rel, { nil: undefined }), rule: fc.constantFrom("a\n", "b/\n", "c d\n", "!a\n", "") }),
      // A path said to have changed that did not: harmless.
      fc.record({ kind: fc.constant("noise" as const), path: rel }),
    );
    type Op = typeof op extends fc.Arbitrary<infer T> ? T : never;
    /** Applies `o` if it makes sense; returns the paths a watcher would report. */
    const apply = (root: string, o: Op): string[] => {
      if (o.kind === "noise") return [o.path];
      if (o.kind === "ignore") {
        const file = o.dir === undefined ? ".gitignore" : `${o.dir}/.gitignore`;
        const st = at(root, o.dir ?? "");
        if (o.dir !== undefined && !st?.isDirectory()) return [];
        put(root, file, o.rule);
        return [file];
      }
      const parts = o.path.split("/");
      for (let i = 1; i < parts.length; i++) {
        const s = at(root, parts.slice(0, i).join("/"));
        if (s && !s.isDirectory()) return [];
      }
      const abs = join(root, o.path);
      const st = at(root, o.path);
      switch (o.kind) {
        case "write": {
          if (st?.isDirectory()) return [];
          const made = firstMissing(root, o.path);
          if (st) rmSync(abs);
          put(root, o.path, o.data, o.exec ? 0o755 : 0o644);
          return made === o.path ? [o.path] : [made, o.path];
        }
        case "mkdir": {
          if (st) return [];
          const made = firstMissing(root, o.path);
          mkdirSync(abs, { recursive: true });
          return [made];
        }
        case "delete":
          if (!st) return [];
          rmSync(abs, { recursive: true });
          return [o.path];
        case "chmod":
          if (st?.isDirectory()) chmodSync(abs, o.open ? 0o755 : 0o700);
          else if (st?.isFile()) chmodSync(abs, o.open ? 0o755 : 0o644);
          else return [];
          return [o.path];
        case "link": {
          if (st) return [];
          const made = firstMissing(root, o.path);
          mkdirSync(join(abs, ".."), { recursive: true });
          symlinkSync(o.target, abs);
          return [made];
        }
        case "rename": {
          if (!st || o.to === o.path || o.to.startsWith(`${o.path}/`) || at(root, o.to)) return [];
          const toParts = o.to.split("/");
          for (let i = 1; i < toParts.length; i++) {
            const s = at(root, toParts.slice(0, i).join("/"));
            if (s && !s.isDirectory()) return [];
          }
          const made = firstMissing(root, o.to);
          mkdirSync(join(root, o.to, ".."), { recursive: true });
          renameSync(abs, join(root, o.to));
          return [o.path, made];
        }
      }
    };
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(op, { minLength: 1, maxLength: 8 }), { minLength: 2, maxLength: 6 }), async (rounds) => {
        const { root, ws, store, open } = await workspaceBench();
        try {
          put(root, "a/b/start.txt", "start\n");
          put(root, "b/start.txt", "start\n");
          await ws.snapshotIfChanged("start"); // the first walk: everything
          for (const round of rounds) {
            const changed = round.flatMap((o) => apply(root, o));
            const r = await ws.snapshotIfChanged("round", { changed });
            const root2 = r?.snapshot.filesRoot ?? (await headRoot(ws));
            expect(root2).toBe(await fullWalkRoot(open));
            // Directory objects reused from the last snapshot are the ones a from-scratch encoding makes.
            if (r) expect(rootFromScratch(await stored(store, root2))).toBe(root2);
          }
        } finally {
          await store.close();
        }
      }),
      { numRuns: 40 },
    );
  });

  it("lists only the folders holding the paths named: a change it is not told about is seen by the next full walk", async () => {
    const { root, ws } = await workspaceBench();
    put(root, "told/a.txt", "a v1\n");
    put(root, "untold/b.txt", "b v1\n");
    put(root, "untold/deeper/c.txt", "c v1\n");
    await ws.snapshotIfChanged("one");
    put(root, "told/a.txt", "a v2, longer\n");
    put(root, "untold/b.txt", "b v2, longer\n");
    const hinted = await ws.snapshotIfChanged("hinted", { changed: ["told/a.txt"] });
    expect(hinted?.changes.map((c) => `${c.kind} ${c.path}`)).toEqual(["modified told/a.txt"]);
    const full = await ws.snapshotIfChanged("full");
    expect(full?.changes.map((c) => `${c.kind} ${c.path}`)).toEqual(["modified untold/b.txt"]);
    // Nothing changed, nothing named: nothing to record.
    expect(await ws.snapshotIfChanged("none", { changed: [] })).toBeNull();
  });

  it("walks a folder it is told about whole: a new folder's files, written before anyone watched it, are all there", async () => {
    const { root, ws, open } = await workspaceBench();
    put(root, "src/a.txt", "a\n");
    await ws.snapshotIfChanged("one");
    put(root, "src/new/deep/er/x.txt", "x\n");
    put(root, "src/new/y.txt", "y\n");
    mkdirSync(join(root, "src/new/empty"));
    const r = await ws.snapshotIfChanged("new folder", { changed: ["src/new"] });
    expect(r?.changes.map((c) => c.path)).toEqual(["src/new/deep/er/x.txt", "src/new/y.txt"]);
    expect(r?.snapshot.filesRoot).toBe(await fullWalkRoot(open));
  });

  it("walks everything when the hint names an ignore file, the root, an unsafe path, or contradicts the last walk", async () => {
    const { root, ws, open } = await workspaceBench();
    put(root, "src/a.txt", "a\n");
    put(root, "src/app.log", "log\n");
    put(root, "other/b.txt", "b v1\n");
    await ws.snapshotIfChanged("one");
    let n = 1;
    const untold = () => put(root, "other/b.txt", `b v${++n}, a change nobody named\n`);

    // .gitignore: what it ignores can be anywhere below it.
    untold();
    put(root, "src/.gitignore", "*.log\n");
    const r1 = await ws.snapshotIfChanged("ignore file", { changed: ["src/.gitignore"] });
    expect(r1?.changes.map((c) => `${c.kind} ${c.path}`)).toEqual(["modified other/b.txt", "created src/.gitignore", "deleted src/app.log"]);

    for (const changed of [[""], ["../outside"], ["src//a.txt"], ["gone/deeper/x.txt"]]) {
      untold();
      const r = await ws.snapshotIfChanged("doubt", { changed });
      expect(
        r?.changes.map((c) => c.path),
        JSON.stringify(changed),
      ).toEqual(["other/b.txt"]);
      expect(r?.snapshot.filesRoot).toBe(await fullWalkRoot(open));
    }
  });

  it("walks everything on an object's first snapshot, though it is given a hint", async () => {
    const { root, ws, open } = await workspaceBench();
    put(root, "a.txt", "a\n");
    await ws.snapshotIfChanged("one");
    put(root, "b.txt", "b\n");
    const fresh = await open();
    const r = await fresh.snapshotIfChanged("first of this object", { changed: [] });
    expect(r?.changes.map((c) => c.path)).toEqual(["b.txt"]);
  });

  it("still tells changes made outside the agent: strict refuses, warn records them", async () => {
    const { root, ws } = await workspaceBench();
    put(root, "mine.txt", "v1\n");
    put(root, "theirs.txt", "v1\n");
    await ws.snapshotIfChanged("one");
    put(root, "mine.txt", "v2 by the agent\n");
    await ws.recordEdit(["mine.txt"]);
    put(root, "theirs.txt", "v2 from outside\n");
    const changed = ["mine.txt", "theirs.txt"];
    const err = await rejectsWith(ws.snapshotIfChanged("strict", { strategy: "strict", changed }), "UNKNOWN_CHANGES");
    expect(err.data["unknown"]).toEqual(["theirs.txt"]);
    const r = await ws.snapshotIfChanged("warn", { strategy: "warn", changed });
    expect(r?.unknown).toEqual(["theirs.txt"]);
    expect(r?.changes.map((c) => c.path)).toEqual(["mine.txt", "theirs.txt"]);
  });
});
