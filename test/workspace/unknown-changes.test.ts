// Changes made behind the agent's back: strict refuses, warn records them, auto-integrate
// records them first as an "external" snapshot. Edits the agent records are its own.
import { renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ForgeError } from "../../src/index.js";
import { rejectsWith } from "../support/errors.js";
import { put, read, workspaceBench, type Bench } from "./support.js";

/** A first snapshot of a.txt, b.txt, c.txt; then the agent edits a.txt (recorded) and someone else edits b.txt. */
async function agentAndOutsider(): Promise<Bench & { base: string; baseHashes: Map<string, string> }> {
  const b = await workspaceBench();
  put(b.root, "a.txt", "a v1\n");
  put(b.root, "b.txt", "b v1\n");
  put(b.root, "c.txt", "c v1\n");
  const first = await b.ws.snapshot("base");
  const tree = (await b.ws.treeOf(first.snapshot.id)).tree;
  const baseHashes = new Map([...tree.files].map(([p, f]) => [p, f.hash]));
  put(b.root, "a.txt", "a v2 by the agent\n");
  await b.ws.recordEdit(["a.txt"]);
  put(b.root, "b.txt", "b v2 from outside\n");
  return { ...b, base: first.snapshot.id, baseHashes };
}

describe("changes made outside the agent", () => {
  it("strict: refuses with UNKNOWN_CHANGES naming the outside paths, and writes no snapshot", async () => {
    const { ws, base } = await agentAndOutsider();
    const err = await rejectsWith(ws.snapshot("agent work", { strategy: "strict" }), "UNKNOWN_CHANGES");
    expect(err.data["unknown"]).toEqual(["b.txt"]);
    expect(err.message).toMatch(/1 file\(s\) changed outside the agent since the last snapshot: b\.txt/);
    const log = await ws.log();
    expect(log.map((c) => c.id)).toEqual([base]);
    expect((await ws.session.head()).checkpoint?.id).toBe(base);
    // The journal survives the refusal: once the outsider's change is accepted as the agent's, strict goes through.
    await ws.recordEdit(["b.txt"]);
    const r = await ws.snapshot("agent work", { strategy: "strict" });
    expect(r.unknown).toEqual([]);
    expect(r.external).toBeNull();
  });

  it("warn: records the outside paths as `unknown` in the snapshot state and takes the snapshot", async () => {
    const { ws, state, root } = await agentAndOutsider();
    const r = await ws.snapshot("agent work", { strategy: "warn" });
    expect(r.unknown).toEqual(["b.txt"]);
    expect(r.external).toBeNull();
    const s = await state(r.snapshot.id);
    expect(s.unknown).toEqual(["b.txt"]);
    expect(s.external).toBe(false);
    const tree = (await ws.treeOf(r.snapshot.id)).tree;
    expect(tree.files.size).toBe(3);
    expect(read(root, "b.txt")).toBe("b v2 from outside\n");
    expect((await ws.log()).length).toBe(2);
  });

  it("auto-integrate: writes an external snapshot with only the outside changes, then the agent's snapshot", async () => {
    const { ws, state, root, base, baseHashes } = await agentAndOutsider();
    // More outside changes: a file created and one deleted.
    put(root, "d.txt", "d created outside\n");
    rmSync(join(root, "c.txt"));
    const r = await ws.snapshot("agent work", { strategy: "auto-integrate" });
    expect([...r.unknown].sort()).toEqual(["b.txt", "c.txt", "d.txt"]);
    const external = r.external;
    expect(external).not.toBeNull();
    if (external === null) return;
    expect(external.parentId).toBe(base);
    expect(r.snapshot.parentId).toBe(external.id);
    expect(external.tags).toContain("external");
    expect(external.trigger).toBe("external-changes");
    const es = await state(external.id);
    expect(es.external).toBe(true);
    expect([...es.unknown].sort()).toEqual(["b.txt", "c.txt", "d.txt"]);

    const outside = (await ws.treeOf(external.id)).tree;
    const now = (await ws.treeOf(r.snapshot.id)).tree;
    // The outside changes are in it …
    expect(outside.files.get("b.txt")?.hash).toBe(now.files.get("b.txt")?.hash);
    expect(outside.files.get("b.txt")?.hash).not.toBe(baseHashes.get("b.txt"));
    expect(outside.files.has("d.txt")).toBe(true);
    expect(outside.files.has("c.txt")).toBe(false);
    // … the agent's edit is not.
    expect(outside.files.get("a.txt")?.hash).toBe(baseHashes.get("a.txt"));
    expect(now.files.get("a.txt")?.hash).not.toBe(baseHashes.get("a.txt"));
    // The agent's snapshot is the whole current tree; it does not list the outside changes again.
    expect([...now.files.keys()].sort()).toEqual(["a.txt", "b.txt", "d.txt"]);
    expect((await state(r.snapshot.id)).unknown).toEqual([]);
    expect((await ws.log()).map((c) => c.id)).toEqual([r.snapshot.id, external.id, base]);
  });

  it("counts nothing as unknown in the first snapshot, and nothing when every change was recorded", async () => {
    const { ws, root } = await workspaceBench();
    put(root, "a.txt", "one\n");
    const first = await ws.snapshot("first", { strategy: "strict" });
    expect(first.unknown).toEqual([]);
    // Edit, create, delete and rename — all recorded, some by absolute path.
    put(root, "a.txt", "two\n");
    put(root, "new.txt", "new\n");
    put(root, "gone.txt", "x");
    await ws.recordEdit(["a.txt", join(root, "new.txt")]);
    put(root, "moved-from.txt", "moving\n".repeat(5));
    const second = await ws.snapshot("second", { strategy: "warn" });
    expect([...second.unknown].sort()).toEqual(["gone.txt", "moved-from.txt"]);
    rmSync(join(root, "gone.txt"));
    renameSync(join(root, "moved-from.txt"), join(root, "moved-to.txt"));
    await ws.endEdit(["gone.txt", "moved-from.txt", "moved-to.txt"]);
    const status = await ws.status();
    expect(status.changes.map((c) => `${c.kind} ${c.path}`)).toEqual(["deleted gone.txt", "renamed moved-to.txt"]);
    expect(status.unknown).toEqual([]);
    const third = await ws.snapshot("third", { strategy: "strict" });
    expect(third.unknown).toEqual([]);
  });

  it("treats changes made between beginEdit and endEdit as the agent's, however many", async () => {
    const { ws, root } = await workspaceBench();
    put(root, "a.txt", "one\n");
    await ws.snapshot("first");
    await ws.beginEdit(["a.txt", "made.txt"]);
    put(root, "a.txt", "two\n");
    put(root, "made.txt", "made by the agent\n");
    put(root, "a.txt", "three\n");
    expect((await ws.status()).unknown).toEqual([]);
    const r = await ws.snapshot("agent", { strategy: "strict" });
    expect(r.changes.map((c) => c.path)).toEqual(["a.txt", "made.txt"]);
  });

  it("reports an edit the agent recorded and someone changed again afterwards as unknown", async () => {
    const { ws, root } = await workspaceBench();
    put(root, "a.txt", "one\n");
    put(root, "b.txt", "bee\n");
    await ws.snapshot("first");
    put(root, "a.txt", "two, by the agent\n");
    await ws.recordEdit(["a.txt"]);
    expect((await ws.status()).unknown).toEqual([]);
    put(root, "a.txt", "three, by someone else\n");
    expect((await ws.status()).unknown).toEqual(["a.txt"]);
    await rejectsWith(ws.snapshot("agent", { strategy: "strict" }), "UNKNOWN_CHANGES");
    // A deletion the agent recorded, then the file re-created by someone else: unknown too.
    rmSync(join(root, "b.txt"));
    await ws.endEdit(["b.txt"]);
    put(root, "b.txt", "back, from outside\n");
    expect([...(await ws.status()).unknown].sort()).toEqual(["a.txt", "b.txt"]);
  });

  it("forgets the recorded edits once a snapshot is taken: a later change to the same file is unknown again", async () => {
    const { ws, root } = await workspaceBench();
    put(root, "a.txt", "one\n");
    await ws.snapshot("first");
    put(root, "a.txt", "two\n");
    await ws.recordEdit(["a.txt"]);
    await ws.snapshot("second", { strategy: "strict" });
    put(root, "a.txt", "three\n");
    expect((await ws.status()).unknown).toEqual(["a.txt"]);
  });

  it("vouches for the agent's edits of files named __proto__ and constructor, as of any file", async () => {
    const b = await workspaceBench();
    put(b.root, "keep.txt", "k\n");
    await b.ws.snapshot("base");
    put(b.root, "__proto__", "agent's\n");
    put(b.root, "constructor", "agent's too\n");
    await b.ws.recordEdit(["__proto__", "constructor"]);
    put(b.root, "hasOwnProperty", "from outside\n");
    expect((await b.ws.status()).unknown).toEqual(["hasOwnProperty"]);
  });

  it("refuses to record an edit of a path outside the workspace", async () => {
    const { ws, parent } = await workspaceBench();
    await rejectsWith(ws.recordEdit([join(parent, "elsewhere.txt")]), "PATH_OUTSIDE_WORKSPACE");
    await rejectsWith(ws.beginEdit(["../elsewhere.txt"]), "PATH_OUTSIDE_WORKSPACE");
  });

  it("rejects an unknown strategy before writing anything", async () => {
    const { ws, root } = await workspaceBench();
    put(root, "a.txt", "one\n");
    const err = await ws.snapshot("x", { strategy: "yolo" as "warn" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ForgeError);
    expect((err as ForgeError).code).toBe("INVALID_ARGUMENT");
    expect(await ws.log()).toEqual([]);
  });

  it("does not list the files a restore wrote as changed outside the agent in the snapshot recording the restore", async () => {
    // The restore itself wrote them: they are Forge's own changes, not someone else's.
    const { ws, root, state } = await workspaceBench();
    put(root, "a.txt", "one\n");
    const first = await ws.snapshot("first");
    put(root, "a.txt", "two\n");
    await ws.recordEdit(["a.txt"]);
    await ws.snapshot("second", { strategy: "strict" });
    const r = await ws.restore(first.snapshot.id);
    expect(r.restored).not.toBeNull();
    expect((await state(r.restored?.id ?? "")).unknown).toEqual([]);
  });
});
