// Files a snapshot cannot hold: over the size limit (listed, not stored) and unreadable
// (reported, the snapshot tagged "incomplete"). Restore leaves both alone.
//
// Unreadable files and root: these tests run as root here, and root reads a chmod 000 file
// regardless (CAP_DAC_OVERRIDE), so chmod alone proves nothing. The tests therefore run the
// `forge` CLI as an unprivileged user ("nobody", via spawn's uid/gid options) on a tree
// chowned to that user, with the file chmod 000: the kernel then really refuses the read
// with EACCES. Each test first checks that premise by trying to read the file as that user.
// When the tests do not run as root they simply run as themselves.
import { spawnSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { blobRaw } from "../../src/objects/node.js";
import { sha256 } from "../../src/objects/hash.js";
import { forge, json, ok, type RunAs } from "../support/cli.js";
import { requireBuiltLibrary } from "../support/processes.js";
import { put, read, tempDir, unprivilegedUser, workspaceBench } from "./support.js";

describe("files over the size limit", () => {
  it("lists them as too large in the snapshot state and in status, without storing them", async () => {
    const { root, ws, state, store } = await workspaceBench({ maxFileBytes: 1000 });
    const big = Buffer.alloc(5000, 0x61);
    put(root, "big.bin", big);
    put(root, "exactly-the-limit.bin", Buffer.alloc(1000, 0x62));
    put(root, "small.txt", "small\n");
    const snap = await ws.snapshot("one");
    const s = await state(snap.snapshot.id);
    expect(s.tooLarge).toEqual(["big.bin"]);
    const tree = (await ws.treeOf(snap.snapshot.id)).tree;
    expect(tree.files.get("big.bin")).toMatchObject({ type: "x", size: 5000, hash: "" });
    expect(tree.files.get("exactly-the-limit.bin")?.type).toBe("f");
    expect(await store.objects.has(sha256(blobRaw(big)))).toBe(false);
    const status = await ws.status();
    expect(status.tooLarge).toEqual(["big.bin"]);
    expect(status.changes).toEqual([]);
  });

  it("leaves a too-large file alone on restore, though it changed since the snapshot, and does not delete one the snapshot lacks", async () => {
    const { root, ws } = await workspaceBench({ maxFileBytes: 1000 });
    put(root, "big.bin", Buffer.alloc(5000, 1));
    put(root, "small.txt", "v1\n");
    const snap = await ws.snapshot("one");
    put(root, "big.bin", Buffer.alloc(6000, 2));
    put(root, "later-big.bin", Buffer.alloc(3000, 3));
    put(root, "small.txt", "v2\n");
    const r = await ws.restore(snap.snapshot.id);
    expect(read(root, "small.txt")).toBe("v1\n");
    expect(readFileSync(join(root, "big.bin")).equals(Buffer.alloc(6000, 2))).toBe(true);
    expect(readFileSync(join(root, "later-big.bin")).equals(Buffer.alloc(3000, 3))).toBe(true);
    expect(r.written).toEqual(["small.txt"]);
    expect(r.deleted).toEqual([]);
    expect(r.skipped.map((s) => s.path).sort()).toEqual(["big.bin", "later-big.bin"]);
  });

  it("leaves alone a file that was small in the snapshot but is over the limit now (its content is stored nowhere)", async () => {
    // Overwriting it would lose data for good: the safety snapshot cannot hold it either.
    const { root, ws } = await workspaceBench({ maxFileBytes: 1000 });
    put(root, "grows.bin", "small once\n");
    const snap = await ws.snapshot("one");
    const grown = Buffer.alloc(5000, 9);
    put(root, "grows.bin", grown);
    expect((await ws.status()).tooLarge).toEqual(["grows.bin"]);
    const r = await ws.restore(snap.snapshot.id);
    expect(readFileSync(join(root, "grows.bin")).equals(grown)).toBe(true);
    expect(r.written).not.toContain("grows.bin");
    expect(r.skipped.map((s) => s.path)).toContain("grows.bin");
  });
});

/** Who runs the CLI in the unreadable-file tests, and the tree handed over to them. */
function unreadableSetup(): { root: string; as: RunAs | undefined; give: (path: string) => void } {
  requireBuiltLibrary();
  const dir = tempDir("unreadable");
  const root = join(realpathSync(dir.path), "ws");
  mkdirSync(root);
  const isRoot = process.getuid?.() === 0;
  const as = isRoot ? unprivilegedUser() : undefined;
  const give = (path: string) => {
    if (!as) return;
    const visit = (p: string) => {
      chownSync(p, as.uid, as.gid);
      if (lstatSync(p).isDirectory()) for (const n of readdirSync(p)) visit(join(p, n));
    };
    visit(path);
  };
  give(dir.path);
  return { root, as, give };
}

/** Tries to read `path` as the user the CLI runs as; returns the error code, or "readable". */
function readAs(path: string, as: RunAs | undefined): string {
  const r = spawnSync(
    process.execPath,
    ["-e", "try { require('fs').readFileSync(process.argv[1]); console.log('readable') } catch (e) { console.log(e.code) }", path],
    {
      encoding: "utf8",
      ...(as && { uid: as.uid, gid: as.gid }),
    },
  );
  return r.stdout.trim();
}

interface SnapJson {
  snapshot: { id: string; seq: number; tags: string[] };
  incomplete: boolean;
  unreadable: { path: string; why: string }[];
}

interface StateJson {
  state: { unreadable: { path: string; why: string }[]; files: number };
}

interface RestoreJson {
  written: string[];
  deleted: string[];
  skipped: { path: string; why: string }[];
  safety: { id: string } | null;
}

describe("unreadable files", () => {
  it("lists an unreadable file in the snapshot state, tags the snapshot incomplete, reports it in status, and leaves it alone on restore", () => {
    const { root, as, give } = unreadableSetup();
    put(root, "a.txt", "a v1\n");
    put(root, "secret.txt", "secret v1\n");
    give(root);
    ok(forge(root, ["init"], { as }));
    const first = json<SnapJson>(forge(root, ["files", "snapshot", "readable", "--json"], { as }));
    expect(first.incomplete).toBe(false);

    writeFileSync(join(root, "secret.txt"), "secret v2, unreadable\n");
    chmodSync(join(root, "secret.txt"), 0o000);
    put(root, "a.txt", "a v2\n");
    give(root);
    expect(readAs(join(root, "secret.txt"), as)).toBe("EACCES");

    // The text form warns on stderr.
    const text = forge(root, ["files", "status"], { as });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^unreadable: secret\.txt \(EACCES\)$/m);
    const status = json<{ unreadable: { path: string; why: string }[] }>(forge(root, ["files", "status", "--json"], { as }));
    expect(status.unreadable).toEqual([{ path: "secret.txt", why: "EACCES" }]);

    const warned = forge(root, ["files", "snapshot", "unreadable one"], { as });
    expect(warned.code).toBe(0);
    expect(warned.stderr).toMatch(/^forge: warning: could not read secret\.txt \(EACCES\); the snapshot is incomplete for it$/m);
    const log = json<{ snapshots: { id: string; tags: string[] }[] }>(forge(root, ["files", "log", "--json"], { as }));
    const incomplete = log.snapshots[0];
    expect(incomplete?.tags).toContain("incomplete");
    const shown = json<StateJson>(forge(root, ["checkpoint", "show", incomplete?.id ?? "", "--session", "workspace", "--json"], { as }));
    expect(shown.state.unreadable).toEqual([{ path: "secret.txt", why: "EACCES" }]);
    const again = json<SnapJson>(forge(root, ["files", "snapshot", "--json"], { as }));
    expect(again.incomplete).toBe(true);
    expect(again.snapshot.tags).toContain("incomplete");
    expect(again.unreadable).toEqual([{ path: "secret.txt", why: "EACCES" }]);

    // Restoring the incomplete snapshot: the unreadable file is skipped, not rewritten or deleted.
    put(root, "a.txt", "a v3\n");
    give(root);
    const r = json<RestoreJson>(forge(root, ["files", "restore", incomplete?.id ?? "", "--json"], { as }));
    expect(r.skipped.map((s) => s.path)).toContain("secret.txt");
    expect(r.written).toEqual(["a.txt"]);
    expect(r.deleted).toEqual([]);
    expect(read(root, "a.txt")).toBe("a v2\n");
    expect(readFileSync(join(root, "secret.txt"), "utf8")).toBe("secret v2, unreadable\n");
    expect(lstatSync(join(root, "secret.txt")).mode & 0o777).toBe(0);
  });

  it("leaves an unreadable file alone when restoring a snapshot from before it became unreadable (its content is stored nowhere)", () => {
    const { root, as, give } = unreadableSetup();
    put(root, "a.txt", "a v1\n");
    put(root, "secret.txt", "secret v1\n");
    give(root);
    ok(forge(root, ["init"], { as }));
    const first = json<SnapJson>(forge(root, ["files", "snapshot", "readable", "--json"], { as }));
    writeFileSync(join(root, "secret.txt"), "secret v2, never snapshotted\n");
    chmodSync(join(root, "secret.txt"), 0o000);
    put(root, "a.txt", "a v2\n");
    give(root);
    expect(readAs(join(root, "secret.txt"), as)).toBe("EACCES");

    const r = json<RestoreJson>(forge(root, ["files", "restore", first.snapshot.id, "--json"], { as }));
    expect(read(root, "a.txt")).toBe("a v1\n");
    expect(readFileSync(join(root, "secret.txt"), "utf8")).toBe("secret v2, never snapshotted\n");
    expect(r.written).toEqual(["a.txt"]);
    expect(r.skipped.map((s) => s.path)).toContain("secret.txt");
  });

  it("reports a folder it cannot list as unreadable, and a restore of that snapshot does not delete the folder's files", () => {
    const { root, as, give } = unreadableSetup();
    put(root, "a.txt", "a v1\n");
    put(root, "private/keep.txt", "private\n");
    give(root);
    ok(forge(root, ["init"], { as }));
    chmodSync(join(root, "private"), 0o000);
    expect(readAs(join(root, "private/keep.txt"), as)).toBe("EACCES");
    const snap = json<SnapJson>(forge(root, ["files", "snapshot", "--json"], { as }));
    expect(snap.incomplete).toBe(true);
    const shown = json<StateJson>(forge(root, ["checkpoint", "show", snap.snapshot.id, "--session", "workspace", "--json"], { as }));
    expect(shown.state.unreadable).toEqual([{ path: "private", why: "EACCES" }]);

    // Readable again: the snapshot knew nothing of the folder's files, so restoring it must not remove them.
    chmodSync(join(root, "private"), 0o755);
    put(root, "a.txt", "a v2\n");
    give(root);
    json<RestoreJson>(forge(root, ["files", "restore", snap.snapshot.id, "--json"], { as }));
    expect(read(root, "a.txt")).toBe("a v1\n");
    expect(existsSync(join(root, "private/keep.txt"))).toBe(true);
  });
});

describe("the size limit from .forge/config.json", () => {
  it("applies workspace.maxFileBytes in the CLI: status and snapshot name the file, restore leaves it alone", () => {
    requireBuiltLibrary();
    const root = realpathSync(tempDir("cli-limit").path);
    ok(forge(root, ["init"]));
    writeFileSync(join(root, ".forge", "config.json"), JSON.stringify({ workspace: { maxFileBytes: 1000 } }));
    put(root, "small.txt", "v1\n");
    // A sparse file: big by its size, nothing to read.
    writeFileSync(join(root, "huge.bin"), "");
    truncateSync(join(root, "huge.bin"), 5000);
    const text = forge(root, ["files", "snapshot", "one"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/too large, not stored: huge\.bin/);
    expect(forge(root, ["files", "status"]).stdout).toMatch(/^too large to snapshot: huge\.bin$/m);
    const first = json<{ snapshots: { id: string }[] }>(forge(root, ["files", "log", "--json"])).snapshots[0]?.id ?? "";
    put(root, "huge.bin", Buffer.alloc(7000, 1));
    put(root, "small.txt", "v2\n");
    const r = json<RestoreJson>(forge(root, ["files", "restore", first, "--json"]));
    expect(r.written).toEqual(["small.txt"]);
    expect(r.skipped).toEqual([{ path: "huge.bin", why: "too large to have been stored" }]);
    expect(readFileSync(join(root, "huge.bin")).equals(Buffer.alloc(7000, 1))).toBe(true);
  });
});
