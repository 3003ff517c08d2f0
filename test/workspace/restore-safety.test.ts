// A whole restore keeps the state before it so that it can be undone. When the files hold no
// change since HEAD (the usual case when a hook snapshots every edit), HEAD is that state: no
// second copy of it is recorded, and the report's undo names HEAD. When they changed, a
// safety snapshot of them is taken first, as before. Both ways a restore goes (the quick one
// from the kept columns, and the whole one when folders or names differ) follow the rule.
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { age, put, workspaceBench, type Bench } from "./support.js";

/** Two snapshots: "A" (two files), then "B" (one edited, one gone, one new in a new folder). */
async function history(): Promise<{ b: Bench; a: string; head: string }> {
  const b = await workspaceBench();
  put(b.root, "keep.txt", "kept\n");
  put(b.root, "gone.txt", "only in A\n");
  age(b.root);
  const a = (await b.ws.snapshot("A")).snapshot.id;
  put(b.root, "keep.txt", "kept, edited in B\n");
  rmSync(join(b.root, "gone.txt"));
  put(b.root, "new/only-in-b.txt", "B\n");
  age(b.root);
  const head = (await b.ws.snapshot("B")).snapshot.id;
  return { b, a, head };
}

const filesOf = (root: string) => ({
  keep: readFileSync(join(root, "keep.txt"), "utf8"),
  gone: (() => {
    try {
      return readFileSync(join(root, "gone.txt"), "utf8");
    } catch {
      return null;
    }
  })(),
});

describe("a whole restore's safety snapshot", () => {
  it("is not taken when the files are HEAD's: HEAD undoes the restore (names came and went: the whole way)", async () => {
    const { b, a, head } = await history();
    const before = (await b.ws.log()).length;
    const r = await b.ws.restore(a);
    expect(r.safety).toBeNull();
    expect(r.undo?.snapshot.id).toBe(head);
    expect([...r.deleted].sort()).toEqual(["new/only-in-b.txt"]);
    expect(filesOf(b.root)).toEqual({ keep: "kept\n", gone: "only in A\n" });
    // One snapshot more (the restored one), not two.
    expect((await b.ws.log()).length).toBe(before + 1);
    expect((await b.ws.session.head()).checkpoint?.id).toBe(r.restored?.id);
    // The undo it names brings the files back.
    await b.ws.restore((r.undo as { snapshot: { id: string } }).snapshot.id);
    expect(filesOf(b.root)).toEqual({ keep: "kept, edited in B\n", gone: null });
    expect(readFileSync(join(b.root, "new/only-in-b.txt"), "utf8")).toBe("B\n");
  });

  it("is not taken when the files are HEAD's and only contents differ (the quick way)", async () => {
    const b = await workspaceBench();
    put(b.root, "keep.txt", "A\n");
    age(b.root);
    const a = (await b.ws.snapshot("A")).snapshot.id;
    put(b.root, "keep.txt", "B, longer\n");
    age(b.root);
    const head = (await b.ws.snapshot("B")).snapshot.id;
    const before = (await b.ws.log()).length;
    const r = await (await b.open()).restore(a);
    expect(r.safety).toBeNull();
    expect(r.undo?.snapshot.id).toBe(head);
    expect(r.written).toEqual(["keep.txt"]);
    expect((await b.ws.log()).length).toBe(before + 1);
  });

  it("is taken when the files changed since HEAD, and holds them; it undoes the restore", async () => {
    const { b, a, head } = await history();
    put(b.root, "keep.txt", "changed after B, never snapshotted\n");
    mkdirSync(join(b.root, "empty-folder"));
    const r = await b.ws.restore(a);
    expect(r.safety).not.toBeNull();
    expect(r.safety?.id).not.toBe(head);
    expect(r.safety?.tags).toContain("safety");
    expect(r.undo?.snapshot.id).toBe(r.safety?.id);
    await b.ws.restore(r.safety?.id as string);
    expect(readFileSync(join(b.root, "keep.txt"), "utf8")).toBe("changed after B, never snapshotted\n");
  });

  it("is taken when only an empty folder came since HEAD (a snapshot of HEAD would lose it)", async () => {
    const { b, a, head } = await history();
    mkdirSync(join(b.root, "empty-folder"));
    const r = await b.ws.restore(a);
    expect(r.safety).not.toBeNull();
    expect(r.safety?.id).not.toBe(head);
    await b.ws.restore(r.safety?.id as string);
    expect(readFileSync(join(b.root, "new/only-in-b.txt"), "utf8")).toBe("B\n");
    expect(() => readFileSync(join(b.root, "empty-folder"))).toThrow(/EISDIR/);
  });
});
