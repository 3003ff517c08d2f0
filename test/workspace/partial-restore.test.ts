// `files restore REF -- PATHS` leaves HEAD alone and stays undoable (by HEAD when the paths
// held no change since it, else by a safety snapshot kept off HEAD's timeline); a path the
// snapshot does not hold is refused; a snapshot with nothing changed records nothing.
import { realpathSync, rmSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ForgeError } from "../../src/core/errors.js";
import { fails, forge, json, ok } from "../support/cli.js";
import { requireBuiltLibrary } from "../support/processes.js";
import { fingerprint, put, read, tempDir, workspaceBench } from "./support.js";

beforeAll(() => requireBuiltLibrary());

describe("restoring some paths (library)", () => {
  it("leaves HEAD and the log alone; status shows the restored paths; HEAD undoes it when they held no change since it", async () => {
    const { root, ws } = await workspaceBench();
    put(root, "a.txt", "one\n");
    put(root, "b.txt", "one\n");
    const first = await ws.snapshot("first");
    put(root, "a.txt", "two\n");
    put(root, "b.txt", "two\n");
    const second = await ws.snapshot("second");
    put(root, "b.txt", "edited, not snapshotted\n");

    const r = await ws.restore(first.snapshot.id, { paths: ["a.txt"] });
    expect(r).toMatchObject({ written: ["a.txt"], deleted: [], safety: null, restored: null, dryRun: false });
    expect(r.undo?.snapshot.id).toBe(second.snapshot.id);
    expect(r.undo).toMatchObject({ paths: ["a.txt"], created: [] });
    expect(read(root, "a.txt")).toBe("one\n");
    expect(read(root, "b.txt")).toBe("edited, not snapshotted\n");
    expect((await ws.session.head()).checkpoint?.id).toBe(second.snapshot.id);
    expect((await ws.log()).map((c) => c.message)).toEqual(["second", "first"]);
    expect((await ws.status()).changes.map((c) => `${c.kind} ${c.path}`).sort()).toEqual(["modified a.txt", "modified b.txt"]);

    await ws.restore(r.undo?.snapshot.id as string, { paths: [...(r.undo?.paths ?? [])] });
    expect(read(root, "a.txt")).toBe("two\n");
    expect((await ws.status()).changes.map((c) => c.path)).toEqual(["b.txt"]);
  });

  it("discarding an edit with `restore HEAD -- path` leaves that path clean in status", async () => {
    const { root, ws } = await workspaceBench();
    put(root, "a.txt", "saved\n");
    const snap = await ws.snapshot();
    put(root, "a.txt", "unsaved edit\n");
    const r = await ws.restore("HEAD", { paths: ["a.txt"] });
    expect(read(root, "a.txt")).toBe("saved\n");
    expect((await ws.status()).changes).toEqual([]);
    expect((await ws.session.head()).checkpoint?.id).toBe(snap.snapshot.id);
    // The edit is nowhere else, so it was kept: in the safety session, off HEAD's timeline.
    expect(r.safety?.session).toBe("workspace/safety");
    expect(r.undo?.snapshot.id).toBe(r.safety?.id);
    expect((await ws.log()).length).toBe(1);
    // Its id (as printed) restores it.
    await ws.restore(r.safety?.id.slice(0, 10) as string, { paths: ["a.txt"] });
    expect(read(root, "a.txt")).toBe("unsaved edit\n");
  });

  it("keeps unsaved work it overwrites or deletes in a safety snapshot; restoring that on the paths gives back exactly the files before", async () => {
    const { root, ws } = await workspaceBench();
    put(root, "src/a.txt", "one\n");
    put(root, "src/keep.txt", "keep\n");
    const first = await ws.snapshot("first");
    put(root, "src/a.txt", "work in progress\n");
    put(root, "src/new.txt", "new, never snapshotted\n");
    put(root, "other.txt", "elsewhere\n");
    const before = fingerprint(join(root, "src"));

    const r = await ws.restore(first.snapshot.id, { paths: ["src"] });
    expect([...r.written]).toEqual(["src/a.txt"]);
    expect([...r.deleted]).toEqual(["src/new.txt"]);
    expect(r.safety).not.toBeNull();
    expect(r.undo).toMatchObject({ paths: ["src"], created: [] });
    expect((await ws.session.head()).checkpoint?.id).toBe(first.snapshot.id);
    // Changes elsewhere stay pending, and nothing the restore did is a change "made outside the agent".
    const status = await ws.status();
    expect(status.changes.map((c) => `${c.kind} ${c.path}`).sort()).toEqual(["created other.txt"]);
    expect(status.unknown).toEqual(["other.txt"]);

    await ws.restore(r.safety?.id as string, { paths: ["src"] });
    const after = fingerprint(join(root, "src"));
    // Same content and modes (files are rewritten, so inodes differ).
    const strip = (f: Record<string, string>) => Object.fromEntries(Object.entries(f).map(([k, v]) => [k, v.replace(/ ino \d+/, "")]));
    expect(strip(after)).toEqual(strip(before));
  });

  it("names the files it created where nothing was, to delete on undo", async () => {
    const { root, ws } = await workspaceBench();
    put(root, "gone.txt", "was here\n");
    put(root, "x.txt", "x\n");
    const first = await ws.snapshot("first");
    rmSync(join(root, "gone.txt"));
    await ws.snapshot("without it");
    const r = await ws.restore(first.snapshot.id, { paths: ["gone.txt"] });
    expect(read(root, "gone.txt")).toBe("was here\n");
    expect(r.undo).toMatchObject({ paths: [], created: ["gone.txt"] });
  });

  it("refuses a path the snapshot does not hold, naming it, before writing or recording anything", async () => {
    const { root, ws, store } = await workspaceBench();
    put(root, "a.txt", "one\n");
    const first = await ws.snapshot("first");
    put(root, "a.txt", "two\n");
    put(root, "later.txt", "made after\n");
    const files = () => Object.fromEntries(Object.entries(fingerprint(root)).filter(([p]) => p !== ".forge" && !p.startsWith(".forge/")));
    const before = files();
    const e = await ws.restore(first.snapshot.id, { paths: ["a.txt", "later.txt", "nope/deeper"] }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ForgeError);
    expect((e as ForgeError).code).toBe("NOT_FOUND");
    expect((e as ForgeError).message).toBe(`snapshot #1 ${first.snapshot.id.slice(0, 10)} holds no "later.txt", "nope/deeper"`);
    expect((e as ForgeError).data).toMatchObject({ paths: ["later.txt", "nope/deeper"] });
    expect(files()).toEqual(before);
    expect((await ws.log()).length).toBe(1);
    expect((await store.listSessions()).map((s) => s.name)).toEqual(["workspace"]);
  });

  it("records nothing when the paths are already as in the snapshot", async () => {
    const { root, ws } = await workspaceBench();
    put(root, "a.txt", "same\n");
    const first = await ws.snapshot("first");
    put(root, "b.txt", "unsaved\n");
    const r = await ws.restore(first.snapshot.id, { paths: ["a.txt"] });
    expect(r).toMatchObject({ written: [], deleted: [], safety: null, restored: null, undo: null });
  });

  it("a whole restore still moves HEAD: safety snapshot first, the result recorded", async () => {
    const { root, ws } = await workspaceBench();
    put(root, "a.txt", "one\n");
    const first = await ws.snapshot("first");
    put(root, "a.txt", "two\n");
    const r = await ws.restore(first.snapshot.id);
    expect(r.safety?.session).toBe("workspace");
    expect((await ws.session.head()).checkpoint?.id).toBe(r.restored?.id);
    expect(r.undo).toMatchObject({ paths: [], created: [] });
    expect(r.undo?.snapshot.id).toBe(r.safety?.id);
  });
});

describe("forge files restore -- PATHS and forge files snapshot with nothing changed (CLI)", () => {
  function initialized(): string {
    const root = realpathSync(tempDir("partial-cli").path);
    expect(ok(forge(root, ["init"]))).toMatch(/Initialized empty Forge store/);
    return root;
  }

  it("a snapshot with no change since the last records nothing, says so, and exits 0; --json says recorded: false", () => {
    const root = initialized();
    put(root, "a.txt", "a\n");
    const first = json<{ recorded: boolean; snapshot: { id: string; seq: number } }>(forge(root, ["files", "snapshot", "first", "--json"]));
    expect(first.recorded).toBe(true);
    const text = ok(forge(root, ["files", "snapshot", "again"]));
    expect(text).toMatch(
      new RegExp(`^nothing changed since snapshot #1 ${first.snapshot.id.slice(0, 8)}\\w*: 1 file; 0 created, 0 modified, 0 deleted; no new snapshot\\n$`),
    );
    const again = json<{ recorded: boolean; snapshot: { id: string }; changes: Record<string, number> }>(forge(root, ["files", "snapshot", "--json"]));
    expect(again).toMatchObject({ recorded: false, snapshot: { id: first.snapshot.id }, changes: { created: 0, modified: 0, deleted: 0, renamed: 0 } });
    expect(json<{ snapshots: unknown[] }>(forge(root, ["files", "log", "--json"])).snapshots).toHaveLength(1);
  });

  it("restores a path, leaves HEAD alone and prints how to undo it; a path the snapshot lacks is an error naming it", () => {
    const root = initialized();
    put(root, "a.txt", "one\n");
    const first = json<{ snapshot: { id: string } }>(forge(root, ["files", "snapshot", "first", "--json"]));
    put(root, "a.txt", "two\n");
    const second = json<{ snapshot: { id: string } }>(forge(root, ["files", "snapshot", "second", "--json"]));
    const out = ok(forge(root, ["files", "restore", first.snapshot.id, "--", "a.txt"]));
    expect(out).toContain("wrote   a.txt");
    expect(out).toContain("HEAD stays where it was");
    expect(out).toContain(`to undo it: \`forge files restore ${second.snapshot.id} -- a.txt\``);
    expect(read(root, "a.txt")).toBe("one\n");
    const log = json<{ snapshots: { id: string }[] }>(forge(root, ["files", "log", "--json"])).snapshots;
    expect(log.map((c) => c.id)).toEqual([second.snapshot.id, first.snapshot.id]);

    fails(forge(root, ["files", "restore", first.snapshot.id, "--", "a.txt", "no/such.txt"]), 1, /^forge: snapshot #1 \w+ holds no "no\/such.txt"/);
    expect(read(root, "a.txt")).toBe("one\n");

    put(root, "a.txt", "three, unsaved\n");
    const r = json<{ partial: boolean; safety: { id: string; session: string } | null; undo: { snapshot: { id: string }; paths: string[] } }>(
      forge(root, ["files", "restore", second.snapshot.id, "--json", "--", "a.txt"]),
    );
    expect(r.partial).toBe(true);
    expect(r.safety?.session).toBe("workspace/safety");
    expect(r.undo).toMatchObject({ snapshot: { id: r.safety?.id }, paths: ["a.txt"] });
    ok(forge(root, ["files", "restore", r.safety?.id as string, "--", "a.txt"]));
    expect(read(root, "a.txt")).toBe("three, unsaved\n");
  });
});
