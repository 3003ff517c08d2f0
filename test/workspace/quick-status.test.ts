// The quick status (by stats alone, against the tree cache's FTC2 stats) must say what a full walk says, and give way to one whenever it cannot.
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, truncateSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readTree, type Tree } from "../../src/objects/file-tree.js";
import { quickStatus, type WalkSettings } from "../../src/domains/workspace/quick-status.js";
import { readTreeColumns, treeFromColumns } from "../../src/domains/workspace/tree-cache.js";
import { DEFAULT_MAX_FILE_BYTES, type FileChange } from "../../src/domains/workspace/workspace.js";
import { type Bench, git, put, workspaceBench, age, walkedStatus, cachePath, HOUR_AGO_S } from "./support.js";

const SETTINGS: WalkSettings = { ignore: [], secretFiles: undefined, maxFileBytes: DEFAULT_MAX_FILE_BYTES };
const lines = (changes: readonly FileChange[]) => changes.map((c) => `${c.kind} ${c.path}${c.from === undefined ? "" : ` <- ${c.from}`}`);

async function headRoot(b: Bench): Promise<string> {
  return (await b.ws.session.head()).checkpoint?.filesRoot as string;
}

/** The quick status against HEAD's tree cache, as `Workspace.status` would take it (undefined: a walk must say). */
async function quick(b: Bench, settings = SETTINGS) {
  const cols = readTreeColumns(cachePath(b.root), await headRoot(b));
  return cols && quickStatus(b.root, cols, settings);
}

/** A fresh Workspace's status (quick when it can be), checked against the full walk's and the expected changes. */
async function statusIsTrue(b: Bench, expected: string[], options: Parameters<Bench["open"]>[0] = {}) {
  const got = await (await b.open(options)).status();
  expect(got).toEqual(await walkedStatus(b, options));
  expect(lines(got.changes)).toEqual(expected);
  return got;
}

/** `files` written, every time aged, snapshot "one" taken. */
async function bench(files: Record<string, string>, options: Parameters<typeof workspaceBench>[0] = {}) {
  const b = await workspaceBench(options);
  for (const [p, data] of Object.entries(files)) put(b.root, p, data);
  age(b.root);
  const one = (await b.ws.snapshot("one")).snapshot;
  return { b, one };
}

const twelve = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`d${i % 3}/f${i}.txt`, `file ${i}\n`]));
const sorted = (t: Tree) => ({ files: [...t.files].sort(([x], [y]) => (x < y ? -1 : 1)), dirs: [...t.dirs].sort(([x], [y]) => (x < y ? -1 : 1)) });

describe("quick status", () => {
  it("takes the quick path when only contents changed, and says exactly what a walk with no tree cache says", async () => {
    const { b, one } = await bench(twelve);
    const idle = await quick(b);
    expect(idle).toEqual({ changes: [], tooLarge: [], secretFiles: [], stale: 0 });
    put(b.root, "d0/f0.txt", "changed 0\n");
    put(b.root, "d2/f5.txt", "changed five, and longer\n");
    const expected = ["modified d0/f0.txt", "modified d2/f5.txt"];
    expect(lines((await quick(b))?.changes ?? [])).toEqual(expected);
    const got = await statusIsTrue(b, expected);
    // Before: the snapshot's entries as the store holds them; after: what the next snapshot records.
    const stored = await readTree(b.store.objects, one.filesRoot as string);
    for (const c of got.changes) expect(c.before).toEqual(stored.files.get(c.path));
    expect(got.changes.map((c) => c.after?.size)).toEqual([10, 25]);
    expect(got.unknown).toEqual(["d0/f0.txt", "d2/f5.txt"]);
    // A cold walk: no tree cache at all, nor a stat cache.
    rmSync(cachePath(b.root));
    rmSync(join(b.root, ".forge", "stat-cache.bin"));
    expect(await (await b.open()).status()).toEqual(got);
    const two = (await (await b.open()).snapshot("two")).snapshot;
    const after = await readTree(b.store.objects, two.filesRoot as string);
    for (const c of got.changes) expect(after.files.get(c.path)).toEqual(c.after);
  });

  it("reads a racy file again whatever its stats say, and sees it changed with the same size and mtime", async () => {
    const b = await workspaceBench();
    for (const [p, data] of Object.entries(twelve)) put(b.root, p, data);
    put(b.root, "racy.txt", "AAAA");
    age(b.root);
    put(b.root, "racy.txt", "AAAA"); // rewritten in place: its mtime is now, its folder's is not
    await b.ws.snapshot("one");
    const idle = await quick(b);
    expect(idle?.changes).toEqual([]);
    expect(idle?.stale).toBe(1); // read, though nothing differs: racy
    const before = statSync(join(b.root, "racy.txt"));
    put(b.root, "racy.txt", "BBBB");
    utimesSync(join(b.root, "racy.txt"), before.atime, before.mtime);
    expect(lines((await quick(b))?.changes ?? [])).toEqual(["modified racy.txt"]);
    await statusIsTrue(b, ["modified racy.txt"]);
  });

  it("sees a file rewritten with the same size and mtime (its ctime or inode differ)", async () => {
    const { b } = await bench({ ...twelve, "same.txt": "first version", "moved.txt": "first version" });
    put(b.root, "same.txt", "other version");
    utimesSync(join(b.root, "same.txt"), HOUR_AGO_S, HOUR_AGO_S);
    expect(lines((await quick(b))?.changes ?? [])).toEqual(["modified same.txt"]);
    await statusIsTrue(b, ["modified same.txt"]);
    // Replaced by rename (a new inode): its folder changed, a walk says.
    put(b.parent, "tmp.txt", "other version");
    utimesSync(join(b.parent, "tmp.txt"), HOUR_AGO_S, HOUR_AGO_S);
    renameSync(join(b.parent, "tmp.txt"), join(b.root, "moved.txt"));
    expect(await quick(b)).toBeUndefined();
    await statusIsTrue(b, ["modified moved.txt", "modified same.txt"]);
  });

  const structural: [string, (root: string) => void, string[]][] = [
    ["a file created", (r) => put(r, "d1/new.txt", "new\n"), ["created d1/new.txt"]],
    ["a file deleted", (r) => unlinkSync(join(r, "d2/f2.txt")), ["deleted d2/f2.txt"]],
    ["a file renamed", (r) => renameSync(join(r, "d0/f3.txt"), join(r, "d1/moved.txt")), ["renamed d1/moved.txt <- d0/f3.txt"]],
    ["a folder created", (r) => put(r, "d9/deep/x.txt", "x\n"), ["created d9/deep/x.txt"]],
    [
      "a folder removed",
      (r) => rmSync(join(r, "d1"), { recursive: true }),
      ["deleted d1/f1.txt", "deleted d1/f10.txt", "deleted d1/f4.txt", "deleted d1/f7.txt"],
    ],
    ["an empty folder created", (r) => mkdirSync(join(r, "d0/empty")), []],
    [
      "a file deleted, its folder's mtime put back",
      (r) => {
        unlinkSync(join(r, "d0/f6.txt"));
        utimesSync(join(r, "d0"), HOUR_AGO_S, HOUR_AGO_S);
      },
      ["deleted d0/f6.txt"],
    ],
  ];
  for (const [what, change, expected] of structural) {
    it(`gives way to a walk when ${what}`, async () => {
      const { b } = await bench(twelve);
      change(b.root);
      expect(await quick(b)).toBeUndefined();
      await statusIsTrue(b, expected);
    });
  }

  it("gives way to a walk when an ignore file or the ignore settings change", async () => {
    const { b } = await bench({ ...twelve, ".gitignore": "*.tmp\n", "x.log": "log\n", "sub/y.tmp2": "y\n" });
    expect(await quick(b)).toBeDefined();
    // Modified in place (no folder changes): a pattern that now leaves out a file the snapshot has.
    writeFileSync(join(b.root, ".gitignore"), "*.tmp\n*.log\n");
    expect(await quick(b)).toBeUndefined();
    await statusIsTrue(b, ["modified .gitignore", "deleted x.log"]);
    // Created in a folder.
    put(b.root, "sub/.gitignore", "*.tmp2\n");
    expect(await quick(b)).toBeUndefined();
    await statusIsTrue(b, ["modified .gitignore", "created sub/.gitignore", "deleted sub/y.tmp2", "deleted x.log"]);
    // Other configured patterns than the snapshot's walk had.
    const { b: c } = await bench(twelve);
    expect(await quick(c, { ...SETTINGS, ignore: ["d0/"] })).toBeUndefined();
    await statusIsTrue(c, ["deleted d0/f0.txt", "deleted d0/f3.txt", "deleted d0/f6.txt", "deleted d0/f9.txt"], { ignore: ["d0/"] });
    expect(await quick(c)).toBeDefined();
  });

  it("gives way to a walk when git's index changes: git add, git rm --cached", async () => {
    const b = await workspaceBench();
    for (const [p, data] of Object.entries(twelve)) put(b.root, p, data);
    put(b.root, ".gitignore", "*.log\n");
    put(b.root, "kept.log", "log\n");
    put(b.root, "untracked.txt", "u\n");
    git(b.root, "init", "-q");
    git(b.root, "add", ".gitignore", "d0", "d1", "d2");
    age(b.root);
    await b.ws.snapshot("one");
    expect(await quick(b)).toBeDefined();
    git(b.root, "add", "untracked.txt"); // the same files, judged the same: only the key says
    expect(await quick(b)).toBeUndefined();
    await statusIsTrue(b, []);
    expect(await quick(b)).toBeDefined(); // the walk found the snapshot's files: the stats were written afresh
    git(b.root, "add", "-f", "kept.log"); // tracked now: kept though ignored
    expect(await quick(b)).toBeUndefined();
    await statusIsTrue(b, ["created kept.log"]);
    await (await b.open()).snapshot("two");
    git(b.root, "rm", "-q", "--cached", "kept.log");
    expect(await quick(b)).toBeUndefined();
    await statusIsTrue(b, ["deleted kept.log"]);
  });

  it("stays quick across a commit when no path was judged by git's index (nothing the rules leave out)", async () => {
    const b = await workspaceBench();
    for (const [p, data] of Object.entries(twelve)) put(b.root, p, data);
    git(b.root, "init", "-q");
    git(b.root, "add", ".");
    age(b.root);
    await b.ws.snapshot("one");
    git(b.root, "commit", "-qm", "one"); // the index rewritten: what the walk took did not depend on it
    put(b.root, "d1/f4.txt", "changed\n");
    expect((await quick(b))?.changes.map((c) => c.path)).toEqual(["d1/f4.txt"]);
    await statusIsTrue(b, ["modified d1/f4.txt"]);
    // A rule that leaves a path out makes the walk ask git whether it tracks it: the index is then in the key.
    put(b.root, ".gitignore", "*.log\n");
    put(b.root, "x.log", "x\n");
    age(b.root);
    await (await b.open()).snapshot("two");
    expect(await quick(b)).toBeDefined();
    git(b.root, "add", "-f", "x.log");
    expect(await quick(b)).toBeUndefined();
    await statusIsTrue(b, ["created x.log"]);
  });

  it("lets snapshotIfChanged say 'nothing' from stats alone, and still records a change or a file touched then changed", async () => {
    const { b, one } = await bench(twelve);
    expect(await (await b.open()).snapshotIfChanged("idle")).toBeNull();
    utimesSync(join(b.root, "d0/f0.txt"), HOUR_AGO_S + 60, HOUR_AGO_S + 60); // touched: read, found the same
    expect(await (await b.open()).snapshotIfChanged("touched")).toBeNull();
    expect((await b.ws.session.head()).checkpoint?.id).toBe(one.id);
    put(b.root, "d2/f5.txt", "five, changed\n");
    const r = await (await b.open()).snapshotIfChanged("changed");
    expect(r?.changes.map((c) => `${c.kind} ${c.path}`)).toEqual(["modified d2/f5.txt"]);
    await statusIsTrue(b, []);
  });

  it("never trusts a damaged tree cache, and a leftover temporary file is harmless", async () => {
    const { b } = await bench(twelve);
    const path = cachePath(b.root);
    const good = readFileSync(path);
    writeFileSync(`${path}.4242.tmp`, good.subarray(0, 100));
    put(b.root, "d1/f1.txt", "changed\n");
    expect(lines((await quick(b))?.changes ?? [])).toEqual(["modified d1/f1.txt"]);
    await statusIsTrue(b, ["modified d1/f1.txt"]);
    const root = await headRoot(b);
    // A byte flipped in the stats (near the end), in the header's counts, or the file cut short.
    for (const at of [good.length - 30, 5, -1]) {
      if (at < 0) truncateSync(path, Math.floor(good.length / 2));
      else writeFileSync(path, Buffer.from(good).fill(good[at] === 0 ? 1 : 0, at, at + 1));
      expect(readTreeColumns(path, root)).toBeUndefined();
      await statusIsTrue(b, ["modified d1/f1.txt"]);
    }
  });

  it("stays right with two Workspace objects snapshotting at once after edits", async () => {
    const { b } = await bench(twelve);
    const [x, y] = [await b.open(), await b.open()];
    for (let round = 0; round < 4; round++) {
      put(b.root, `d0/f${round % 2 === 0 ? 0 : 3}.txt`, `x round ${round}\n`);
      put(b.root, "d1/f1.txt", `y round ${round}\n`);
      if (round === 2) put(b.root, "d2/new.txt", "new\n");
      await Promise.all([x.snapshot(`x ${round}`), y.snapshot(`y ${round}`)]);
    }
    const head = await headRoot(b);
    const cols = readTreeColumns(cachePath(b.root), undefined);
    // Whoever wrote it last: it is HEAD's tree (then it is that tree exactly), or it is not used.
    if (cols?.root === head) expect(sorted(treeFromColumns(cols) as Tree)).toEqual(sorted(await readTree(b.store.objects, head)));
    else expect(readTreeColumns(cachePath(b.root), head)).toBeUndefined();
    await statusIsTrue(b, []);
    put(b.root, "d1/f4.txt", "after\n");
    await statusIsTrue(b, ["modified d1/f4.txt"]);
  });

  it("reports a symlink's new target and a file's new mode", async () => {
    const b = await workspaceBench();
    for (const [p, data] of Object.entries(twelve)) put(b.root, p, data);
    symlinkSync("d0/f0.txt", join(b.root, "link"));
    age(b.root);
    await b.ws.snapshot("one");
    expect(await quick(b)).toBeDefined();
    chmodSync(join(b.root, "d1/f1.txt"), 0o755);
    const q = await quick(b);
    expect(q?.changes.map((c) => [c.path, c.before?.mode, c.after?.mode])).toEqual([["d1/f1.txt", 0o644, 0o755]]);
    await statusIsTrue(b, ["modified d1/f1.txt"]);
    unlinkSync(join(b.root, "link"));
    symlinkSync("d2/f2.txt", join(b.root, "link"));
    expect(await quick(b)).toBeUndefined();
    const got = await statusIsTrue(b, ["modified d1/f1.txt", "modified link"]);
    expect(got.changes[1]?.after).toMatchObject({ type: "l", target: "d2/f2.txt" });
    // A new link renamed over the old one.
    symlinkSync("d1/f1.txt", join(b.root, "d0/tmp-link"));
    renameSync(join(b.root, "d0/tmp-link"), join(b.root, "link"));
    expect(await quick(b)).toBeUndefined();
    expect((await statusIsTrue(b, ["modified d1/f1.txt", "modified link"])).changes[1]?.after).toMatchObject({ target: "d1/f1.txt" });
  });

  it("rewrites the stats of touched files a status found unchanged, and is quick again without reading them", async () => {
    const { b } = await bench(Object.fromEntries(Array.from({ length: 24 }, (_, i) => [`t${i % 2}/f${i}.txt`, `file ${i}\n`])));
    const taken = readTreeColumns(cachePath(b.root), await headRoot(b))?.stats?.takenAt as number;
    for (let i = 0; i < 20; i++) utimesSync(join(b.root, `t${i % 2}/f${i}.txt`), HOUR_AGO_S + 1800, HOUR_AGO_S + 1800);
    const touched = await quick(b);
    expect(touched).toMatchObject({ changes: [], tooLarge: [], secretFiles: [], stale: 20 });
    expect(touched?.refresh?.files).toHaveLength(20);
    await statusIsTrue(b, []); // by stats, the 20 read, found unchanged and their stats written
    const cols = readTreeColumns(cachePath(b.root), await headRoot(b));
    expect(cols?.stats?.takenAt).toBeGreaterThan(taken);
    expect(await quick(b)).toEqual({ changes: [], tooLarge: [], secretFiles: [], stale: 0 });
    // The cache still holds HEAD's tree, as the store has it.
    expect(sorted(treeFromColumns(cols as NonNullable<typeof cols>) as Tree)).toEqual(sorted(await readTree(b.store.objects, await headRoot(b))));
    // Touched again, and one of them changed: whichever way it goes, it says what a walk says.
    for (let i = 0; i < 20; i++) utimesSync(join(b.root, `t${i % 2}/f${i}.txt`), HOUR_AGO_S + 2400, HOUR_AGO_S + 2400);
    put(b.root, "t1/f21.txt", "changed\n");
    expect(lines((await quick(b))?.changes ?? [])).toEqual(["modified t1/f21.txt"]);
    await statusIsTrue(b, ["modified t1/f21.txt"]);
    // The changed file keeps the stats the snapshot saw: read, and reported, every time until a snapshot records it.
    const again = await quick(b);
    expect(lines(again?.changes ?? [])).toEqual(["modified t1/f21.txt"]);
    expect(again?.stale).toBe(0);
    await statusIsTrue(b, ["modified t1/f21.txt"]);
  });

  it("snapshots by stats when only contents changed: the same root as a walk from scratch, the stats kept", async () => {
    const { b } = await bench(twelve);
    put(b.root, "d0/f0.txt", "changed 0\n");
    put(b.root, "d1/f7.txt", "changed 7\n");
    expect((await quick(b))?.changes).toHaveLength(2);
    const two = await (await b.open()).snapshot("two");
    expect(lines(two.changes)).toEqual(["modified d0/f0.txt", "modified d1/f7.txt"]);
    const root = two.snapshot.filesRoot as string;
    const cols = readTreeColumns(cachePath(b.root), root);
    expect(cols?.stats).toBeDefined();
    expect(sorted(treeFromColumns(cols as NonNullable<typeof cols>) as Tree)).toEqual(sorted(await readTree(b.store.objects, root)));
    const q = await quick(b);
    expect(q?.changes).toEqual([]);
    expect(q?.stale).toBe(2); // the two files just written are racy: read again, found as recorded
    await statusIsTrue(b, []);
    // The same files walked from scratch give the same tree.
    rmSync(cachePath(b.root));
    rmSync(join(b.root, ".forge", "stat-cache.bin"));
    const three = await (await b.open()).snapshot("three");
    expect(three.snapshot.filesRoot).toBe(root);
    expect(three.changes).toEqual([]);
  });

  // Whether a .pem, .key, .npmrc or .pypirc is a secret file depends on its bytes (secret-files.ts SNIFF).
  const pems = async () => {
    const key = "-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----\n";
    const { b } = await bench({ ...twelve, "certs/server.pem": "-----BEGIN CERTIFICATE-----\nMIIC\n", "certs/client.pem": key });
    expect((await walkedStatus(b)).secretFiles).toEqual(["certs/client.pem"]);
    writeFileSync(join(b.root, "certs/server.pem"), key); // same listings, same ignore files: only bytes say
    writeFileSync(join(b.root, "certs/client.pem"), "-----BEGIN CERTIFICATE-----\nMIID\n");
    return b;
  };

  it("sees a file whose new bytes make it a secret file, or no longer one", async () => {
    const b = await pems();
    expect((await walkedStatus(b)).secretFiles).toEqual(["certs/server.pem"]);
    await statusIsTrue(b, ["created certs/client.pem", "deleted certs/server.pem"]);
  });

  it("never stores a file whose new bytes make it a secret file", async () => {
    const b = await pems();
    const two = await (await b.open()).snapshot("two");
    expect(two.secretFiles).toEqual(["certs/server.pem"]);
    expect([...(await readTree(b.store.objects, two.snapshot.filesRoot as string)).files.keys()].filter((p) => p.startsWith("certs/"))).toEqual([
      "certs/client.pem",
    ]);
  });

  it("gives way to a walk when a file grows past maxFileBytes, and reports it too large", async () => {
    const { b } = await bench({ ...twelve, "big.bin": "x".repeat(100), "small.txt": "small\n" }, { maxFileBytes: 64 });
    const settings = { ...SETTINGS, maxFileBytes: 64 };
    expect(await quick(b, settings)).toEqual({ changes: [], tooLarge: ["big.bin"], secretFiles: [], stale: 0 });
    writeFileSync(join(b.root, "small.txt"), "y".repeat(100));
    expect(await quick(b, settings)).toBeUndefined();
    const got = await statusIsTrue(b, ["modified small.txt"]); // the bench's Workspaces have maxFileBytes 64
    expect(got.tooLarge).toEqual(["big.bin", "small.txt"]);
    expect(got.changes[0]?.after).toMatchObject({ type: "x", size: 100 });
  });

  it("gives way to a walk when a .gitignore above the workspace, in its git work tree, changes", async () => {
    const b = await workspaceBench();
    for (const [p, data] of Object.entries(twelve)) put(b.root, p, data);
    put(b.parent, ".gitignore", "*.tmp\n");
    git(b.parent, "init", "-q");
    age(b.root);
    await b.ws.snapshot("one");
    expect(await quick(b)).toBeDefined();
    writeFileSync(join(b.parent, ".gitignore"), "*.tmp\nd2/\n");
    expect(await quick(b)).toBeUndefined();
    await statusIsTrue(b, ["deleted d2/f11.txt", "deleted d2/f2.txt", "deleted d2/f5.txt", "deleted d2/f8.txt"]);
    await (await b.open()).snapshot("two");
    expect(await quick(b)).toBeDefined();
    writeFileSync(join(b.parent, ".git/info/exclude"), "ws/d1/f1*\n"); // git's own excludes: in git's key
    expect(await quick(b)).toBeUndefined();
    await statusIsTrue(b, ["deleted d1/f1.txt", "deleted d1/f10.txt"]);
  });
});
