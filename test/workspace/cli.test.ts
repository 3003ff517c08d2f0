// `forge files …`, `forge du` and `checkpoint create/restore --files` end to end: the real
// command (bin/forge.js on the built dist/) in a temp folder with its own .forge store.
import { spawnSync } from "node:child_process";
import { existsSync, realpathSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { fails, forge, json, ok } from "../support/cli.js";
import { requireBuiltLibrary } from "../support/processes.js";
import { put, read, tempDir, walkTree } from "./support.js";

interface CheckpointJson {
  id: string;
  seq: number;
  session: string;
  tags: string[];
  message: string;
  trigger: string;
  filesRoot: string | null;
  metadata: Record<string, unknown>;
}

interface SnapshotJson {
  snapshot: CheckpointJson;
  external: CheckpointJson | null;
  unknown: string[];
  changes: { created: number; modified: number; deleted: number; renamed: number };
  newBytes: number;
  incomplete: boolean;
  files: number;
  tooLarge: string[];
  unreadable: { path: string; why: string }[];
}

interface SideJson {
  type: string;
  mode: string;
  size: number;
  target?: string;
}

interface ChangeJson {
  path: string;
  kind: string;
  from?: string;
  before: SideJson | null;
  after: SideJson | null;
}

interface RestoreJson {
  safety: CheckpointJson | null;
  restored: CheckpointJson | null;
  written: string[];
  deleted: string[];
  skipped: { path: string; why: string }[];
  dryRun: boolean;
}

beforeAll(() => requireBuiltLibrary());

/** A fresh folder with `forge init` run in it. */
function initialized(): string {
  const root = realpathSync(tempDir("files-cli").path);
  expect(ok(forge(root, ["init"]))).toMatch(/Initialized empty Forge store/);
  return root;
}

/** A first snapshot of a small project, then outside changes of every kind. */
function projectWithChanges(root: string): SnapshotJson {
  put(root, "a.txt", "line1\nline2\nline3\n");
  put(root, "old.txt", "content that moves\n".repeat(3));
  put(root, "b.bin", Buffer.from([0, 1, 2]));
  put(root, "gone.txt", "bye\n");
  const first = json<SnapshotJson>(forge(root, ["files", "snapshot", "first", "--json"]));
  put(root, "a.txt", "line1\nCHANGED\nline3\n");
  renameSync(join(root, "old.txt"), join(root, "new.txt"));
  put(root, "b.bin", Buffer.from([0, 1, 2, 3]));
  rmSync(join(root, "gone.txt"));
  put(root, "fresh.txt", "fresh\n");
  return first;
}

describe("forge files", () => {
  it("snapshots, and shows status in text and JSON with every kind of change (rename included)", () => {
    const root = initialized();
    expect(ok(forge(root, ["files", "status"]))).toMatch(/no snapshot yet: everything is new/);
    const first = projectWithChanges(root);
    expect(first.snapshot.seq).toBe(1);
    expect(first.snapshot.session).toBe("workspace");
    expect(first.files).toBe(4);
    expect(first.changes).toEqual({ created: 4, modified: 0, deleted: 0, renamed: 0 });
    expect(first.unknown).toEqual([]);
    expect(first.incomplete).toBe(false);
    expect(first.newBytes).toBeGreaterThan(0);

    const text = ok(forge(root, ["files", "status"]));
    expect(text).toMatch(/^since snapshot #1 /m);
    const lines = text.trim().split("\n").slice(1);
    expect(lines).toEqual([
      "M  a.txt  (changed outside the agent)",
      "M  b.bin  (changed outside the agent)",
      "A  fresh.txt  (changed outside the agent)",
      "D  gone.txt  (changed outside the agent)",
      "R  old.txt → new.txt  (changed outside the agent)",
    ]);
    const status = json<{ base: CheckpointJson; changes: ChangeJson[]; unknown: string[]; tooLarge: string[]; unreadable: unknown[] }>(
      forge(root, ["files", "status", "--json"]),
    );
    expect(status.base.id).toBe(first.snapshot.id);
    expect(status.changes.map((c) => [c.kind, c.path, c.from ?? null])).toEqual([
      ["modified", "a.txt", null],
      ["modified", "b.bin", null],
      ["created", "fresh.txt", null],
      ["deleted", "gone.txt", null],
      ["renamed", "new.txt", "old.txt"],
    ]);
    expect(status.changes[0]?.before).toMatchObject({ type: "f", mode: "644", size: 18 });
    expect([...status.unknown].sort()).toEqual(["a.txt", "b.bin", "fresh.txt", "gone.txt", "new.txt", "old.txt"]);

    // A warn snapshot goes through and says what came from outside.
    const second = forge(root, ["files", "snapshot", "second"]);
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/^snapshot #2 \S+: 4 files; 1 created, 2 modified, 1 deleted, 1 renamed; .* new on disk$/m);
    expect(second.stderr).toMatch(/^forge: warning: 6 files changed outside the agent since the last snapshot: /);
    expect(ok(forge(root, ["files", "status"]))).toMatch(/^no changes$/m);
  });

  it("diffs as unified text, --stat, --json, with a binary note, a rename note, and -- paths", () => {
    const root = initialized();
    projectWithChanges(root);
    const text = ok(forge(root, ["files", "diff"]));
    expect(text).toContain("--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n line1\n-line2\n+CHANGED\n line3\n");
    expect(text).toMatch(/^modified b\.bin: binary file modified \(3 → 4 bytes\)$/m);
    expect(text).toMatch(/^renamed old\.txt → new\.txt: renamed from old\.txt, content unchanged$/m);
    expect(text).toContain("--- /dev/null\n+++ b/fresh.txt\n");
    expect(text).toContain("--- a/gone.txt\n+++ /dev/null\n");

    const stat = ok(forge(root, ["files", "diff", "--stat"]));
    expect(stat).toMatch(/^R {2}old\.txt → new\.txt$/m);
    expect(stat).toMatch(/^5 files: 1 created, 2 modified, 1 deleted, 1 renamed$/m);
    const statJson = json<{ counts: Record<string, number>; files: ChangeJson[] }>(forge(root, ["files", "diff", "--stat", "--json"]));
    expect(statJson.counts).toEqual({ created: 1, modified: 2, deleted: 1, renamed: 1 });
    expect(statJson.files).toHaveLength(5);
    expect(statJson.files.find((f) => f.path === "new.txt")).toMatchObject({ kind: "renamed", from: "old.txt" });

    const full = json<{ counts: Record<string, number>; files: (ChangeJson & { patch: string | null; note?: string })[] }>(
      forge(root, ["files", "diff", "--json"]),
    );
    const byPath = new Map(full.files.map((c) => [c.path, c]));
    expect(byPath.get("a.txt")?.patch).toContain("-line2\n+CHANGED\n");
    expect(byPath.get("b.bin")?.patch).toBeNull();
    expect(byPath.get("b.bin")?.note).toBe("binary file modified (3 → 4 bytes)");
    expect(byPath.get("new.txt")?.note).toBe("renamed from old.txt, content unchanged");

    const limited = json<{ files: { path: string }[] }>(forge(root, ["files", "diff", "--json", "--", "a.txt"]));
    expect(limited.files.map((c) => c.path)).toEqual(["a.txt"]);

    // Between two snapshots.
    json<SnapshotJson>(forge(root, ["files", "snapshot", "second", "--json"]));
    const between = json<{ counts: Record<string, number> }>(forge(root, ["files", "diff", "#1", "#2", "--stat", "--json"]));
    expect(between.counts).toEqual({ created: 1, modified: 2, deleted: 1, renamed: 1 });
    const none = json<{ files: unknown[] }>(forge(root, ["files", "diff", "#2", "working", "--json"]));
    expect(none.files).toEqual([]);
    // A mode change alone is shown as such.
    spawnSync("chmod", ["+x", join(root, "a.txt")]);
    expect(ok(forge(root, ["files", "diff"]))).toMatch(/^modified a\.txt: mode 644 → 755$/m);
    expect(ok(forge(root, ["files", "status"]))).toMatch(/^M {2}a\.txt \(mode 644 → 755\)/m);
  });

  it("refuses a strict snapshot with changes from outside (exit 1, forge: message), accepts it once edits are recorded", () => {
    const root = initialized();
    put(root, "a.txt", "one\n");
    json<SnapshotJson>(forge(root, ["files", "snapshot", "--json"]));
    put(root, "a.txt", "two\n");
    put(root, "b.txt", "new\n");
    const refused = forge(root, ["files", "snapshot", "agent", "--strategy", "strict"]);
    fails(refused, 1, /^forge: 2 file\(s\) changed outside the agent since the last snapshot: a\.txt, b\.txt \(look at them with `forge files diff`/);
    expect(refused.stdout).toBe("");
    expect(json<{ snapshots: unknown[] }>(forge(root, ["files", "log", "--json"])).snapshots).toHaveLength(1);

    expect(ok(forge(root, ["files", "edit", "a.txt", "b.txt"]))).toBe("recorded 2 paths\n");
    const strict = json<SnapshotJson>(forge(root, ["files", "snapshot", "agent", "--strategy", "strict", "--json"]));
    expect(strict.unknown).toEqual([]);
    expect(strict.changes).toEqual({ created: 1, modified: 1, deleted: 0, renamed: 0 });

    // --begin: anything until the snapshot is the agent's.
    expect(json<{ recorded: string[]; begin: boolean }>(forge(root, ["files", "edit", "--begin", "c.txt", "--json"]))).toEqual({
      recorded: ["c.txt"],
      begin: true,
    });
    put(root, "c.txt", "made by the agent\n");
    put(root, "d.txt", "made outside\n");
    expect(json<{ unknown: string[] }>(forge(root, ["files", "status", "--json"])).unknown).toEqual(["d.txt"]);
    const auto = forge(root, ["files", "snapshot", "agent 2", "--strategy", "auto-integrate"]);
    expect(auto.code).toBe(0);
    expect(auto.stdout).toMatch(/^external #3 \S+: 1 change made outside the agent, recorded first$/m);
    expect(auto.stdout).toMatch(/^snapshot #4 /m);
    const log = ok(forge(root, ["files", "log"]));
    expect(log).toMatch(/^#3 .* external changes \(made outside the agent\) \[external\]$/m);

    fails(forge(root, ["files", "snapshot", "--strategy", "yolo"]), 2, /argument 'yolo' is invalid/);
  });

  it("restores: --dry-run lists and changes nothing, a real restore prints the safety snapshot that undoes it", () => {
    const root = initialized();
    put(root, "a.txt", "original\n");
    put(root, "keep/k.txt", "kept\n");
    const first = json<SnapshotJson>(forge(root, ["files", "snapshot", "original", "--json"]));
    const original = walkTree(root);
    put(root, "a.txt", "changed\n");
    put(root, "new.txt", "new\n");
    const changed = walkTree(root);

    const dry = ok(forge(root, ["files", "restore", first.snapshot.id.slice(0, 10), "--dry-run"]));
    expect(dry).toBe("would write   a.txt\nwould delete new.txt\ndry run: 1 written, 1 deleted\n");
    expect(walkTree(root)).toEqual(changed);
    const dryJson = json<RestoreJson>(forge(root, ["files", "restore", first.snapshot.id, "--dry-run", "--json"]));
    expect(dryJson).toMatchObject({ dryRun: true, safety: null, restored: null, written: ["a.txt"], deleted: ["new.txt"] });
    expect(json<{ snapshots: unknown[] }>(forge(root, ["files", "log", "--json"])).snapshots).toHaveLength(1);

    const real = ok(forge(root, ["files", "restore", first.snapshot.id.slice(0, 10)]));
    expect(real).toMatch(/^wrote {3}a\.txt$/m);
    expect(real).toMatch(/^deleted new\.txt$/m);
    expect(real).toMatch(/^1 written, 1 deleted$/m);
    const m = /the state before the restore is snapshot #(\d+) (\S+): `forge files restore (\S+)` undoes this/.exec(real);
    expect(m).not.toBeNull();
    expect(walkTree(root)).toEqual(original);
    const log = ok(forge(root, ["files", "log"]));
    expect(log).toMatch(/\[safety\]/);
    expect(log).toMatch(/\[restore\]/);

    // The printed command undoes it. The files are as the restore left them (HEAD): HEAD, not a second safety snapshot, undoes that.
    const restored = json<{ snapshots: CheckpointJson[] }>(forge(root, ["files", "log", "--json", "-n", "1"])).snapshots[0] as CheckpointJson;
    const undo = ok(forge(root, ["files", "restore", m?.[3] ?? ""]));
    expect(undo).toMatch(/^2 written, 0 deleted$/m);
    expect(undo).toContain(`the state before the restore is snapshot #${restored.seq} ${restored.id}`);
    expect(ok(forge(root, ["files", "log"])).match(/\[safety\]/g)).toHaveLength(1);
    expect(walkTree(root)).toEqual(changed);
    expect(m?.[2]).toMatch(/^[0-9A-Z]{26}$/);

    // Only the paths after --: each must be in the snapshot (new.txt is not), and HEAD stays.
    fails(forge(root, ["files", "restore", first.snapshot.id, "--", "new.txt"]), 1, /^forge: snapshot #1 \w+ holds no "new.txt"/);
    const head = json<{ snapshots: CheckpointJson[] }>(forge(root, ["files", "log", "--json", "-n", "1"])).snapshots[0];
    const partial = json<RestoreJson>(forge(root, ["files", "restore", first.snapshot.id, "--json", "--", "keep"]));
    expect(partial).toMatchObject({ written: [], deleted: [], safety: null, restored: null });
    put(root, "keep/k.txt", "edited\n");
    put(root, "keep/more.txt", "more\n");
    const again = json<RestoreJson>(forge(root, ["files", "restore", first.snapshot.id, "--json", "--", "keep"]));
    expect(again).toMatchObject({ written: ["keep/k.txt"], deleted: ["keep/more.txt"], restored: null });
    expect(again.safety?.tags).toContain("safety");
    expect(again.safety?.session).toBe("workspace/safety");
    expect(read(root, "a.txt")).toBe("changed\n");
    expect(json<{ snapshots: CheckpointJson[] }>(forge(root, ["files", "log", "--json", "-n", "1"])).snapshots[0]?.id).toBe(head?.id);
  });

  it("fails with exit 1 and a forge: message for refs that match nothing, and exit 2 for a missing ref", () => {
    const root = initialized();
    put(root, "a.txt", "a\n");
    ok(forge(root, ["files", "snapshot"]));
    const before = walkTree(root);
    fails(forge(root, ["files", "restore", "nope"]), 1, /^forge: no checkpoint matches "nope"/);
    fails(forge(root, ["files", "restore", "#99"]), 1, /#99/);
    fails(forge(root, ["files", "diff", "nope"]), 1, /^forge: no checkpoint matches "nope"/);
    fails(forge(root, ["files", "diff", "#1", "#2", "#3"]), 2, /at most two snapshots/);
    fails(forge(root, ["files", "restore"]), 2, /missing required argument 'ref'/);
    fails(forge(root, ["files", "restore", "working"]), 1, /restore needs a snapshot/);
    expect(walkTree(root)).toEqual(before);
    expect(json<{ snapshots: unknown[] }>(forge(root, ["files", "log", "--json"])).snapshots).toHaveLength(1);
  });

  it("points at `forge files log` (not `forge checkpoint list`, which shows another session) when a snapshot ref matches nothing", () => {
    const root = initialized();
    put(root, "a.txt", "a\n");
    ok(forge(root, ["files", "snapshot"]));
    const r = forge(root, ["files", "restore", "nope"]);
    fails(r, 1, /^forge: no checkpoint matches "nope"/);
    expect(r.stderr).toMatch(/forge files log/);
  });

  it("logs snapshots newest first with what each added, limited by -n", () => {
    const root = initialized();
    expect(ok(forge(root, ["files", "log"]))).toMatch(/no snapshots yet/);
    put(root, "a.txt", "a\n");
    ok(forge(root, ["files", "snapshot", "one", "-t", "milestone,keep"]));
    put(root, "a.txt", "b\n");
    ok(forge(root, ["files", "edit", "a.txt"]));
    ok(forge(root, ["files", "snapshot", "two"]));
    const lines = ok(forge(root, ["files", "log"]))
      .trim()
      .split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^#2 +\S{10} +.+\+\d+(\.\d+)? (B|KB) +two$/);
    expect(lines[1]).toMatch(/^#1 +\S{10} .* one \[milestone, keep\]$/);
    const limited = json<{ snapshots: CheckpointJson[] }>(forge(root, ["files", "log", "-n", "1", "--json"]));
    expect(limited.snapshots.map((s) => s.message)).toEqual(["two"]);
    expect(limited.snapshots[0]?.metadata["fileBytesAdded"]).toEqual(expect.any(Number));
  });

  it("finds the workspace root from a subfolder (the folder holding .forge), or takes --root", () => {
    const root = initialized();
    put(root, "top.txt", "top\n");
    put(root, "sub/inner.txt", "inner\n");
    const snap = json<SnapshotJson>(forge(join(root, "sub"), ["files", "snapshot", "--json"]));
    expect(snap.changes.created).toBe(2);
    put(root, "sub/inner.txt", "changed\n");
    const status = json<{ changes: ChangeJson[] }>(forge(join(root, "sub"), ["files", "status", "--json"]));
    expect(status.changes.map((c) => c.path)).toEqual(["sub/inner.txt"]);
    const other = realpathSync(tempDir("files-cli-other").path);
    const viaRoot = json<{ changes: ChangeJson[] }>(
      forge(other, ["--store", `sqlite:${join(root, ".forge", "forge.db")}`, "files", "status", "--root", root, "--json"]),
    );
    expect(viaRoot.changes.map((c) => c.path)).toEqual(["sub/inner.txt"]);
    expect(existsSync(join(other, ".forge"))).toBe(false);
  });
});

describe("forge du", () => {
  it("shows the objects, bytes and what the workspace session added, in text and JSON", () => {
    const root = initialized();
    put(root, "a.txt", "a".repeat(5000));
    ok(forge(root, ["files", "snapshot"]));
    put(root, "b.txt", "b".repeat(5000));
    json<SnapshotJson>(forge(root, ["files", "snapshot", "--json"]));
    const du = json<{
      store: string;
      objects: number;
      bytes: number;
      sessions: { name: string; kind: string; checkpoints: number; bytesAdded: number }[];
      gcWouldFree: { objects: number; bytes: number };
    }>(forge(root, ["du", "--json"]));
    expect(du.store).toBe(`sqlite:${join(root, ".forge", "forge.db")}`);
    expect(du.objects).toBeGreaterThan(0);
    expect(du.bytes).toBeGreaterThan(0);
    const ws = du.sessions.find((s) => s.name === "workspace");
    expect(ws).toMatchObject({ kind: "workspace", checkpoints: 2 });
    expect(ws?.bytesAdded).toBeGreaterThan(0);
    expect(du.gcWouldFree).toEqual({ objects: 0, bytes: 0 });
    const text = ok(forge(root, ["du"]));
    expect(text).toMatch(/objects, /);
    expect(text).toMatch(/^ {2}workspace +2 checkpoints +\S+ (B|KB) added$/m);
    expect(text).toMatch(/^gc would free 0 objects \(0 B\)$/m);
  });
});

describe("checkpoint --files", () => {
  it("creates checkpoints carrying the files and restores both the state and the files", () => {
    const root = initialized();
    const states = realpathSync(tempDir("states").path);
    put(states, "s1.json", JSON.stringify({ step: 1 }));
    put(states, "s2.json", JSON.stringify({ step: 2 }));
    put(root, "code.ts", "v1\n");
    put(root, "lib/util.ts", "util v1\n");
    const tree1 = walkTree(root);
    const made = json<{ checkpoint: CheckpointJson; filesSnapshot: CheckpointJson }>(
      forge(root, ["checkpoint", "create", "one", "--state", join(states, "s1.json"), "--files", "--json"]),
    );
    const one = made.checkpoint;
    expect(one.session).toBe("default");
    expect(one.filesRoot).toMatch(/^[0-9a-f]{64}$/);
    expect(made.filesSnapshot.session).toBe("workspace");
    expect(made.filesSnapshot.filesRoot).toBe(one.filesRoot);

    put(root, "code.ts", "v2\n");
    rmSync(join(root, "lib"), { recursive: true });
    put(root, "added.ts", "added\n");
    const text = ok(forge(root, ["checkpoint", "create", "two", "--state", join(states, "s2.json"), "--files"]));
    expect(text).toMatch(/with files snapshot #2 \S+ \(3 files changed since the last\)/);
    const tree2 = walkTree(root);
    put(root, "code.ts", "v3, never checkpointed\n");

    const back = json<{
      checkpoint: CheckpointJson;
      state: unknown;
      files: { written: string[]; deleted: string[]; skipped: unknown[]; safety: CheckpointJson | null };
    }>(forge(root, ["checkpoint", "restore", one.id, "--files", "--json"]));
    expect(back.checkpoint.id).toBe(one.id);
    expect(back.state).toEqual({ step: 1 });
    expect([...back.files.written].sort()).toEqual(["code.ts", "lib/util.ts"]);
    expect(back.files.deleted).toEqual(["added.ts"]);
    expect(back.files.safety?.tags).toContain("safety");
    expect(walkTree(root)).toEqual(tree1);

    // Text form: the state on stdout, the report on stderr.
    const r = forge(root, ["checkpoint", "restore", "#2", "--files"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ step: 2 });
    expect(r.stderr).toMatch(/^ {2}files: 2 written, 1 deleted; the files before are snapshot \S+$/m);
    expect(walkTree(root)).toEqual(tree2);

    // The safety snapshot of the first restore holds the never-checkpointed v3.
    ok(forge(root, ["files", "restore", back.files.safety?.id ?? "", "--", "code.ts"]));
    expect(read(root, "code.ts")).toBe("v3, never checkpointed\n");
  });

  it("refuses --files for a checkpoint without files before moving anything (exit 1)", () => {
    const root = initialized();
    put(root, "a.txt", "a\n");
    const plain = json<{ checkpoint: CheckpointJson }>(
      forge(root, ["checkpoint", "create", "plain", "--state", "-", "--json"], { input: '{"x":1}' }),
    ).checkpoint;
    expect(plain.filesRoot).toBeNull();
    json<{ checkpoint: CheckpointJson }>(forge(root, ["checkpoint", "create", "later", "--state", "-", "--json"], { input: '{"x":2}' }));
    const before = walkTree(root);
    fails(
      forge(root, ["checkpoint", "restore", plain.id, "--files"]),
      1,
      /^forge: checkpoint #1 carries no files snapshot \(it was created without files \(--files on the command line/,
    );
    expect(walkTree(root)).toEqual(before);
    const head = json<{ checkpoint: CheckpointJson }>(forge(root, ["checkpoint", "show", "HEAD", "--json"]));
    expect(head.checkpoint.message).toBe("later");
    expect(existsSync(join(root, ".forge", "forge.db"))).toBe(true);
  });
});
