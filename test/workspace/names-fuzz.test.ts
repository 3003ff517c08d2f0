// Random rounds of what agents and their shells do to a work tree — edits, new files and
// folders, deletions, renames and moves, a symlink or an ignore file now and then — each
// followed by a status and a snapshot through the kept columns (quick-status.ts,
// quick-snapshot.ts, relist.ts). Each must say what a walk from scratch says: the same
// changes, and the same tree. Seeded: a failure names its seed and round.
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildTree } from "../../src/objects/file-tree.js";
import { ignoredOnDisk } from "../../src/domains/workspace/ignore-rules.js";
import { statCompare } from "../../src/domains/workspace/quick-status.js";
import { readTreeColumns } from "../../src/domains/workspace/tree-cache.js";
import { DEFAULT_MAX_FILE_BYTES } from "../../src/domains/workspace/workspace.js";
import { seededRandom } from "../support/processes.js";
import { age, cachePath, put, walkedStatus, workspaceBench } from "./support.js";

/** Every regular file and folder under `root` (not .forge), relative. */
function entries(root: string, dir = ""): { files: string[]; dirs: string[] } {
  const files: string[] = [];
  const dirs: string[] = [];
  for (const d of readdirSync(dir === "" ? root : join(root, dir), { withFileTypes: true })) {
    const path = dir === "" ? d.name : `${dir}/${d.name}`;
    if (d.name === ".forge") continue;
    if (d.isDirectory()) {
      dirs.push(path);
      const sub = entries(root, path);
      files.push(...sub.files);
      dirs.push(...sub.dirs);
    } else if (d.isFile()) files.push(path);
  }
  return { files, dirs };
}

const SEEDS = [1, 2, 3, 4, 5, 6];
const ROUNDS = 16;

describe("random changes of names and contents, through the kept columns", () => {
  for (const seed of SEEDS) {
    it(`say what a walk from scratch says (seed ${seed})`, async () => {
      const rnd = seededRandom(seed);
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
      const b = await workspaceBench();
      put(b.root, ".gitignore", "*.log\n");
      for (let i = 0; i < 12; i++) put(b.root, `d${i % 3}/${i % 2 ? "sub/" : ""}f${i}.txt`, `file ${i}\n`);
      age(b.root);
      await b.ws.snapshot("start");
      let n = 0;
      // How often the comparison by stats took new or gone names in (the fuzz must reach that way, not only the walk).
      let takenIn = 0;
      for (let round = 0; round < ROUNDS; round++) {
        const ops = 1 + Math.floor(rnd() * 3);
        for (let k = 0; k < ops; k++) {
          const { files, dirs } = entries(b.root);
          const plain = files.filter((f) => f !== ".gitignore" && !f.endsWith("/.gitignore"));
          const r = rnd();
          n++;
          if (r < 0.2 && plain.length > 0) writeFileSync(join(b.root, pick(plain)), `edited ${n}\n`);
          else if (r < 0.35) put(b.root, `${dirs.length > 0 && rnd() < 0.8 ? `${pick(dirs)}/` : ""}new${n}.txt`, `new ${n}\n`);
          else if (r < 0.45) put(b.root, `${dirs.length > 0 ? `${pick(dirs)}/` : ""}nd${n}/${rnd() < 0.5 ? `deep${n}/` : ""}x${n}.txt`, `x ${n}\n`);
          else if (r < 0.58 && plain.length > 0) unlinkSync(join(b.root, pick(plain)));
          else if (r < 0.7 && plain.length > 0) {
            const from = pick(plain);
            const toDir = dirs.length > 0 && rnd() < 0.5 ? pick(dirs) : from.slice(0, Math.max(0, from.lastIndexOf("/")));
            const to = `${toDir === "" ? "" : `${toDir}/`}moved${n}.txt`;
            if (existsSync(join(b.root, toDir === "" ? "." : toDir))) renameSync(join(b.root, from), join(b.root, to));
          } else if (r < 0.78 && dirs.length > 0) rmSync(join(b.root, pick(dirs)), { recursive: true });
          else if (r < 0.84 && dirs.length > 0) {
            const from = pick(dirs);
            renameSync(join(b.root, from), join(b.root, `${from.slice(0, Math.max(0, from.lastIndexOf("/") + 1))}ren${n}`));
          } else if (r < 0.88) put(b.root, `${dirs.length > 0 ? `${pick(dirs)}/` : ""}note${n}.log`, "ignored\n");
          else if (r < 0.92 && plain.length > 0) {
            const target = pick(plain);
            const at = `${target.slice(0, Math.max(0, target.lastIndexOf("/") + 1))}link${n}`;
            symlinkSync(target.slice(target.lastIndexOf("/") + 1), join(b.root, at));
          } else if (r < 0.95 && dirs.length > 0) put(b.root, `${pick(dirs)}/.gitignore`, "*.tmp\n");
          else {
            const d = dirs.length > 0 ? pick(dirs) : "";
            mkdirSync(join(b.root, d, `empty${n}`), { recursive: true });
          }
        }
        const label = `seed ${seed}, round ${round}`;
        const head = (await b.ws.session.head()).checkpoint?.filesRoot as string;
        const cols = readTreeColumns(cachePath(b.root), head);
        const settings = { ignore: [], secretFiles: undefined, maxFileBytes: DEFAULT_MAX_FILE_BYTES };
        const found = cols && statCompare(b.root, cols, settings, undefined, () => ignoredOnDisk(b.root), true);
        if (found && (found.added || found.removed || found.addedDirs || found.removedDirs)) takenIn++;
        const status = await (await b.open()).status();
        expect(status, label).toEqual(await walkedStatus(b));
        const snap = await (await b.open()).snapshot(`round ${round}`);
        // The tree a walk from scratch finds now (no caches), and its root.
        const kept = [cachePath(b.root), join(b.root, ".forge", "stat-cache.bin")].filter((p) => existsSync(p));
        const saved = kept.map((p) => [p, readFileSync(p)] as const);
        for (const p of kept) rmSync(p);
        const walked = (await (await b.open()).treeOf("working")).tree;
        for (const [p, bytes] of saved) writeFileSync(p, bytes);
        expect(snap.snapshot.filesRoot, label).toBe(buildTree(walked, null).root);
        expect((await (await b.open()).status()).changes, label).toEqual([]);
        // Every other round the stats age (not racy): the next rounds compare by stats alone.
        if (round % 2 === 1) age(b.root);
      }
      expect(takenIn).toBeGreaterThanOrEqual(3);
    });
  }
});
