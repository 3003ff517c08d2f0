// One file's entry in many snapshots, reading only the folders on its path: the roots of all
// snapshots are read in one batch, then the next folder down of each, and so on (a folder that
// did not change between snapshots has the same hash, so it is read once). Blame compares these
// entries' content ids and reads a file's bytes only where they changed.
import { ForgeError } from "../../../core/errors.js";
import type { FileInfo } from "../../../objects/file-tree.js";
import type { Hash } from "../../../objects/hash.js";
import type { ObjectStore } from "../../../objects/object-store.js";

/**
 * The entry of `path` ("/"-separated, relative to the tree's root) in each of `roots`, in
 * order: null where the path is no file (absent, or a folder). `roots` may repeat.
 */
export async function entriesAt(objects: ObjectStore, roots: readonly Hash[], path: string): Promise<(FileInfo | null)[]> {
  const names = path.split("/");
  const out: (FileInfo | null)[] = roots.map(() => null);
  // Per root: the hash of the folder reached so far (null once the path is gone).
  let at: (Hash | null)[] = [...roots];
  for (let depth = 0; depth < names.length; depth++) {
    const wanted = [...new Set(at.filter((h): h is Hash => h !== null))];
    if (wanted.length === 0) break;
    const nodes = await objects.getNodes(wanted);
    const name = names[depth] as string;
    const last = depth === names.length - 1;
    const next: (Hash | null)[] = at.map(() => null);
    // The entry named `name` in each folder, found once per folder object.
    const found = new Map<Hash, FileInfo | Hash | null>();
    for (const h of wanted) {
      const node = nodes.get(h);
      if (node?.kind !== "d") throw new ForgeError("CORRUPT_OBJECT", `object ${h} should be a directory of a snapshot but is not`);
      const e = node.entries.find((x) => x[1] === name);
      if (e === undefined) found.set(h, null);
      else if (e[2] === "d") found.set(h, last ? null : e[0]);
      else if (!last) found.set(h, null);
      else
        found.set(
          h,
          e[2] === "l"
            ? { type: "l", mode: e[3], size: e[4], hash: e[0], target: e[5] ?? "" }
            : { type: e[2] as FileInfo["type"], mode: e[3], size: e[4], hash: e[0] },
        );
    }
    at.forEach((h, i) => {
      if (h === null) return;
      const f = found.get(h) ?? null;
      if (last) out[i] = typeof f === "object" ? f : null;
      else next[i] = typeof f === "string" ? f : null;
    });
    at = next;
  }
  return out;
}
