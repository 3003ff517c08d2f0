// `forge watch` end to end: the real command (bin/forge.js on the built dist/) as a child
// process in a temp folder with its own SQLite store, driven by what it prints.
import { readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { requireBuiltLibrary } from "../support/processes.js";
import { noise, put } from "../workspace/support.js";
import { checkpoints, expectWhole, forge, forgeJson, place, sleep, watch, type Place, type WatchLine } from "./support.js";

beforeAll(() => requireBuiltLibrary());

const isSnapshot = (l: WatchLine) => l.event === "snapshot";
const isCheckpoint = (l: WatchLine) => l.event === "checkpoint";

/** `count` files of about 1 KB under 30 folders: enough that a snapshot of them takes a while. */
function manyFiles(p: Place, count: number, round = 0): void {
  for (let i = 0; i < count; i++) put(p.root, `d${i % 30}/f${i}.txt`, `round ${round} file ${i}\n${"x".repeat(900 + (i % 200))}\n`);
}

/** `count` incompressible files of `size` bytes: each is deflated on the thread pool, so a snapshot of them yields often. */
function bigFiles(p: Place, count: number, size: number): void {
  for (let i = 0; i < count; i++) put(p.root, `big/b${i}.bin`, noise(size, i + 1));
}

function snapshotsOf(p: Place): { seq: number; message: string }[] {
  return forgeJson<{ snapshots: { seq: number; message: string }[] }>(p, ["files", "log"]).snapshots;
}

describe("forge watch: scheduled checkpoints", () => {
  it("--every 1s checkpoints the session (trigger scheduled) when its working state changed, and not again while it stays the same", async () => {
    const p = place("watch-every");
    expect(forge(p, ["note", "first note"]).code).toBe(0); // the working state moves; no checkpoint yet
    expect(checkpoints(p)).toHaveLength(0);

    const w = watch(p, ["--every", "1s"]);
    const started = await w.waitFor((l) => l.event === "started");
    expect(started).toMatchObject({ session: "default", root: null, everyMs: 1000 });
    const first = await w.waitFor(isCheckpoint);
    expect(first["reasons"]).toEqual(["state"]);

    // Three more ticks with nothing new: no duplicate.
    await sleep(3500);
    expect(w.lines.filter(isCheckpoint)).toHaveLength(1);
    expect(checkpoints(p)).toHaveLength(1);

    const from = w.lines.length;
    expect(forge(p, ["note", "second note"]).code).toBe(0);
    const second = await w.waitFor(isCheckpoint, 10_000, from);
    const list = checkpoints(p);
    expect(list.map((c) => [c.trigger, c.tags])).toEqual([
      ["scheduled", ["scheduled"]],
      ["scheduled", ["scheduled"]],
    ]);
    const cp = second["checkpoint"] as { id: string };
    expect(list[1]?.id).toBe(cp.id);
    const state = forgeJson<{ state: { notes: { text: string }[] } }>(p, ["checkpoint", "show", cp.id]).state;
    expect(state.notes.map((n) => n.text)).toEqual(["first note", "second note"]);

    w.child.kill("SIGTERM");
    expect((await w.exited).code).toBe(0);
    expect(w.lines.at(-1)).toMatchObject({ event: "stopped", reason: "SIGTERM", checkpoints: 2, snapshots: 0, errors: 0 });
    expectWhole(p);
  });

  it("with --files a scheduled checkpoint carries the newest snapshot's files, and files changing alone are reason enough", async () => {
    const p = place("watch-carry");
    put(p.root, "src/a.txt", "a\n");
    expect(forge(p, ["note", "working"]).code).toBe(0);
    const w = watch(p, ["--files", "--every", "1s", "--quiet-period", "300ms"]);
    const startup = await w.waitFor(isSnapshot);
    const first = await w.waitFor(isCheckpoint);
    expect(first["reasons"]).toEqual(["state", "files"]);
    expect((first["checkpoint"] as { filesRoot: string }).filesRoot).toBe((startup["snapshot"] as { filesRoot: string }).filesRoot);

    const from = w.lines.length;
    put(p.root, "src/a.txt", "changed\n");
    const snap = await w.waitFor(isSnapshot, 10_000, from);
    const second = await w.waitFor(isCheckpoint, 10_000, from);
    expect(second["reasons"]).toEqual(["files"]);
    expect((second["checkpoint"] as { filesRoot: string }).filesRoot).toBe((snap["snapshot"] as { filesRoot: string }).filesRoot);
    // Restoring that checkpoint's files gives the edit back: the tree is whole.
    put(p.root, "src/a.txt", "later\n");
    w.child.kill("SIGTERM");
    expect((await w.exited).code).toBe(0);
    expect(forge(p, ["checkpoint", "restore", (second["checkpoint"] as { id: string }).id, "--files", "-o", join(p.root, "..", "state.json")]).code).toBe(0);
    expect(readFileSync(join(p.root, "src/a.txt"), "utf8")).toBe("changed\n");
    expectWhole(p);
  });
});

describe("forge watch --files: snapshots", () => {
  it("a burst of edits becomes one snapshot once the files have been quiet for the quiet period", async () => {
    const p = place("watch-burst");
    put(p.root, "src/keep.txt", "keep\n");
    const w = watch(p, ["--files", "--every", "1h", "--quiet-period", "1s"]);
    const startup = await w.waitFor(isSnapshot);
    expect(startup).toMatchObject({ cause: "startup", changes: { created: 1 }, paths: ["src/keep.txt"] });

    // Burst 1: five files in a new folder, 100 ms apart (well inside the quiet period).
    let from = w.lines.length;
    for (let i = 0; i < 5; i++) {
      put(p.root, `src/new/f${i}.txt`, `file ${i}\n`);
      await sleep(100);
    }
    const s1 = await w.waitFor(isSnapshot, 20_000, from);
    expect(s1).toMatchObject({ cause: "changes", changes: { created: 5, modified: 0, deleted: 0, renamed: 0 } });
    expect(s1["paths"]).toEqual([0, 1, 2, 3, 4].map((i) => `src/new/f${i}.txt`));

    // Burst 2: a change, a deletion and a rename.
    from = w.lines.length;
    put(p.root, "src/keep.txt", "changed\n");
    rmSync(join(p.root, "src/new/f0.txt"));
    renameSync(join(p.root, "src/new/f1.txt"), join(p.root, "src/moved.txt"));
    const s2 = await w.waitFor(isSnapshot, 20_000, from);
    expect(s2["changes"]).toEqual({ created: 0, modified: 1, deleted: 1, renamed: 1 });

    // Quiet from here on: no third snapshot.
    await sleep(2500);
    expect(w.lines.filter(isSnapshot)).toHaveLength(3);
    expect(w.lines.filter((l) => l.event === "skipped" || l.event === "error")).toEqual([]);
    expect(snapshotsOf(p)).toHaveLength(3);
    w.child.kill("SIGTERM");
    expect((await w.exited).code).toBe(0);
    expectWhole(p);
  });

  it("a burst's snapshot lists only the folders its events named, and walks everything when they cannot be trusted (a folder renamed or deleted, an ignore file changed)", async () => {
    const p = place("watch-limited");
    put(p.root, "a/x.txt", "x\n");
    put(p.root, "a/old.log", "log\n");
    put(p.root, "b/y.txt", "y\n");
    put(p.root, "c/d/z.txt", "z\n");
    const w = watch(p, ["--files", "--every", "1h", "--quiet-period", "300ms", "--rescan", "off"]);
    expect(await w.waitFor(isSnapshot)).toMatchObject({ cause: "startup", walk: "full" });
    /** The next snapshot after `edit`; `forge files status` then finds the files exactly as snapshotted. */
    const burst = async (edit: () => void) => {
      const from = w.lines.length;
      edit();
      const s = await w.waitFor((l) => isSnapshot(l) || l.event === "error" || l.event === "skipped", 20_000, from);
      expect(forgeJson<{ changes: unknown[] }>(p, ["files", "status"]).changes).toEqual([]);
      return s;
    };

    // An edit, and a new folder whose files are written before its watch can exist: all found.
    const s1 = await burst(() => {
      put(p.root, "a/x.txt", "x, edited\n");
      put(p.root, "n/m/deep/f.txt", "new\n");
      put(p.root, "n/g.txt", "new too\n");
    });
    expect(s1).toMatchObject({ event: "snapshot", walk: "limited", changes: { created: 2, modified: 1 } });
    expect(s1["paths"]).toEqual(["a/x.txt", "n/g.txt", "n/m/deep/f.txt"]);

    // A folder renamed: its watch follows it under the old name, so everything is walked.
    const s2 = await burst(() => renameSync(join(p.root, "c"), join(p.root, "e")));
    expect(s2).toMatchObject({ event: "snapshot", walk: "full", changes: { renamed: 1 } });

    // An ignore file changed: what is ignored may have changed anywhere below it.
    const s3 = await burst(() => put(p.root, ".gitignore", "*.log\n"));
    expect(s3).toMatchObject({ event: "snapshot", walk: "full" });
    expect(s3["paths"]).toEqual([".gitignore", "a/old.log"]);

    // A folder deleted, then an edit on its own: limited again.
    const s4 = await burst(() => rmSync(join(p.root, "b"), { recursive: true }));
    expect(s4).toMatchObject({ event: "snapshot", walk: "full", paths: ["b/y.txt"] });
    const s5 = await burst(() => put(p.root, "e/d/z.txt", "z, edited\n"));
    expect(s5).toMatchObject({ event: "snapshot", walk: "limited", paths: ["e/d/z.txt"] });

    // A watched folder replaced by another of the same name: walked whole, and the new one is
    // followed (its own watch: the old one was on the folder removed).
    const s6 = await burst(() => {
      rmSync(join(p.root, "a"), { recursive: true });
      put(p.root, "a/fresh.txt", "fresh\n");
    });
    expect(s6).toMatchObject({ event: "snapshot", walk: "full" });
    const s7 = await burst(() => put(p.root, "a/fresh.txt", "fresh, edited\n"));
    expect(s7).toMatchObject({ event: "snapshot", walk: "limited", paths: ["a/fresh.txt"] });

    w.child.kill("SIGTERM");
    expect((await w.exited).code).toBe(0);
    expectWhole(p);
  });

  it("changes to what the ignore rules exclude (.gitignore, node_modules, .forge) take no snapshot", async () => {
    const p = place("watch-ignored");
    put(p.root, ".gitignore", "*.log\nbuild/\n");
    put(p.root, "a.txt", "a\n");
    put(p.root, "build/old.js", "old\n");
    const w = watch(p, ["--files", "--every", "1h", "--quiet-period", "300ms"]);
    await w.waitFor(isSnapshot);
    const from = w.lines.length;
    for (let i = 0; i < 5; i++) {
      put(p.root, "debug.log", `line ${i}\n`);
      put(p.root, "build/out.js", `out ${i}\n`);
      put(p.root, `node_modules/pkg${i}/index.js`, `module ${i}\n`);
      await sleep(50);
    }
    await sleep(1500); // five quiet periods
    put(p.root, "a.txt", "changed\n");
    const next = await w.waitFor((l) => l.event === "snapshot" || l.event === "skipped", 20_000, from);
    expect(next).toMatchObject({ event: "snapshot", paths: ["a.txt"] });
    expect(w.lines.slice(from).filter((l) => l.event !== "checkpoint")).toHaveLength(1);
    w.child.kill("SIGTERM");
    expect((await w.exited).code).toBe(0);
  });

  it("applies the unknown-change strategy: strict refuses changes made outside the agent, once, and takes the agent's own", async () => {
    const p = place("watch-strict");
    put(p.root, "a.txt", "a\n");
    const w = watch(p, ["--files", "--every", "1h", "--quiet-period", "300ms", "--strategy", "strict"]);
    await w.waitFor(isSnapshot); // the first snapshot has nothing to compare with

    // An edit recorded through the agent's own tools is known: snapshotted.
    let from = w.lines.length;
    expect(forge(p, ["files", "edit", "--begin", "a.txt"]).code).toBe(0);
    put(p.root, "a.txt", "by the agent\n");
    expect(forge(p, ["files", "edit", "a.txt"]).code).toBe(0);
    const known = await w.waitFor(isSnapshot, 20_000, from);
    expect(known).toMatchObject({ paths: ["a.txt"], unknown: [] });

    // One behind its back is refused, with the path named.
    from = w.lines.length;
    put(p.root, "b.txt", "outside\n");
    const refused = await w.waitFor((l) => l.event === "error" || isSnapshot(l), 20_000, from);
    expect(refused).toMatchObject({ event: "error", what: "snapshot", code: "UNKNOWN_CHANGES" });
    expect(refused["message"]).toMatch(/b\.txt/);
    expect(snapshotsOf(p)).toHaveLength(2);
    w.child.kill("SIGTERM");
    expect((await w.exited).code).toBe(0);
  });

  it("auto-integrate records changes made outside the agent as their own snapshot first", async () => {
    const p = place("watch-auto");
    put(p.root, "a.txt", "a\n");
    const w = watch(p, ["--files", "--every", "1h", "--quiet-period", "300ms", "--strategy", "auto-integrate"]);
    await w.waitFor(isSnapshot);
    const from = w.lines.length;
    put(p.root, "b.txt", "outside\n");
    const s = await w.waitFor(isSnapshot, 20_000, from);
    expect(s["unknown"]).toEqual(["b.txt"]);
    expect(s["external"]).toMatchObject({ trigger: "external-changes", tags: ["external"] });
    w.child.kill("SIGTERM");
    expect((await w.exited).code).toBe(0);
    expectWhole(p);
  });
});

describe("forge watch: stopping", () => {
  it("SIGTERM while a snapshot is being written lets it finish and print, then exits 0", async () => {
    const p = place("watch-term-write");
    manyFiles(p, 3000);
    const w = watch(p, ["--files", "--every", "1h"]);
    await w.waitFor((l) => l.event === "started");
    // The first walk (3,000 files) is under way now.
    w.child.kill("SIGTERM");
    const exit = await w.exited;
    expect(exit.code).toBe(0);
    // "stopping" says a write was under way when the signal was handled (it nearly always is).
    expect(w.lines.map((l) => l.event).filter((e) => e !== "stopping")).toEqual(["started", "snapshot", "stopped"]);
    const stopping = w.lines.findIndex((l) => l.event === "stopping");
    if (stopping >= 0) expect(w.lines[stopping]).toMatchObject({ reason: "SIGTERM", finishing: "snapshot" });
    expect(w.lines.find(isSnapshot)).toMatchObject({ cause: "startup", changes: { created: 3000 } });
    expect(snapshotsOf(p)).toHaveLength(1);
    expectWhole(p);
  });

  it("SIGTERM during a burst of edits exits 0 and leaves a whole store: every snapshot committed was printed", async () => {
    const p = place("watch-term-burst");
    manyFiles(p, 1500);
    const w = watch(p, ["--files", "--every", "1h", "--quiet-period", "50ms"]);
    await w.waitFor(isSnapshot);
    const from = w.lines.length;
    let writing = true;
    const writer = (async () => {
      for (let round = 1; writing; round++) {
        for (let i = 0; i < 100; i++) put(p.root, `d${i % 30}/f${(round * 100 + i) % 1500}.txt`, `round ${round}\n${"y".repeat(1000)}\n`);
        await sleep(80);
      }
    })();
    await w.waitFor(isSnapshot, 20_000, from); // snapshots of the burst are being written
    w.child.kill("SIGTERM");
    const exit = await w.exited;
    writing = false;
    await writer;
    expect(exit.code).toBe(0);
    expect(w.lines.at(-1)).toMatchObject({ event: "stopped", reason: "SIGTERM" });
    expect(snapshotsOf(p)).toHaveLength(w.lines.filter(isSnapshot).length);
    expectWhole(p);
  });

  it("a second signal exits at once (128 + signal) without leaving half a snapshot, and frees the lock", async () => {
    const p = place("watch-term-twice");
    bigFiles(p, 300, 128 * 1024);
    const w = watch(p, ["--files", "--every", "1h"]);
    await w.waitFor((l) => l.event === "started");
    w.child.kill("SIGTERM");
    // Once the first is handled (the snapshot of 37 MB still being written), the second.
    await w.waitFor((l) => l.event === "stopping");
    w.child.kill("SIGTERM");
    const exit = await w.exited;
    expect(exit.code).toBe(143);
    expect(w.lines.at(-1)).toMatchObject({ event: "stopped", immediate: true });
    // The first walk was cut short (or, on a fast day, had just committed): whole either way.
    const committed = snapshotsOf(p).length;
    expect(committed).toBeLessThanOrEqual(1);
    expect(w.lines.filter(isSnapshot).length).toBeLessThanOrEqual(committed);
    expectWhole(p);

    // The next watcher starts (no lock left); stopped at once, it still finishes its first walk.
    const again = watch(p, ["--files", "--every", "1h"]);
    await again.waitFor((l) => l.event === "started");
    again.child.kill("SIGINT");
    expect((await again.exited).code).toBe(0);
    expect(forgeJson<{ changes: unknown[] }>(p, ["files", "status"]).changes).toEqual([]);
    expectWhole(p);
  });
});

describe("forge watch: one watcher per session and workspace", () => {
  it("a second forge watch on the same session, or the same workspace, is refused naming the first one's pid", async () => {
    const p = place("watch-twice");
    const w = watch(p, ["--files", "--every", "1h"]);
    await w.waitFor(isSnapshot);

    const sameSession = forge(p, ["watch", "--every", "1s"]);
    expect(sameSession.code).toBe(1);
    expect(sameSession.stderr).toMatch(new RegExp(`^forge: session "default" is already watched by another forge watch \\(pid ${w.pid} on `));
    expect(sameSession.stderr).toMatch(/kill \d+/);

    const sameFiles = forge(p, ["watch", "--files", "--session", "other"]);
    expect(sameFiles.code).toBe(1);
    expect(sameFiles.stderr).toMatch(new RegExp(`^forge: the workspace .* is already watched by another forge watch \\(pid ${w.pid} on `));

    // Another session without files is another target.
    const other = watch(p, ["--every", "1h", "--session", "other"]);
    await other.waitFor((l) => l.event === "started");
    other.child.kill("SIGTERM");
    expect((await other.exited).code).toBe(0);

    w.child.kill("SIGTERM");
    expect((await w.exited).code).toBe(0);
    // Once it stopped, the session is free again.
    const next = watch(p, ["--every", "1h"]);
    await next.waitFor((l) => l.event === "started");
    next.child.kill("SIGTERM");
    expect((await next.exited).code).toBe(0);
  });

  it("the lock of a SIGKILLed watcher does not block the next one", async () => {
    const p = place("watch-killed");
    put(p.root, "a.txt", "a\n");
    const w = watch(p, ["--files", "--every", "1h"]);
    await w.waitFor(isSnapshot);
    w.child.kill("SIGKILL");
    expect((await w.exited).signal).toBe("SIGKILL");

    put(p.root, "a.txt", "changed while nobody watched\n");
    const next = watch(p, ["--files", "--every", "1h"]);
    const s = await next.waitFor(isSnapshot);
    expect(s).toMatchObject({ cause: "startup", paths: ["a.txt"] });
    next.child.kill("SIGTERM");
    expect((await next.exited).code).toBe(0);
    expectWhole(p);
  });

  it("refuses to watch a folder that holds its own store where the ignore rules do not exclude it (each snapshot would trigger the next)", () => {
    const p = place("watch-store-inside");
    expect(forge(p, ["init", "--store", "sqlite:data/forge.db"]).code).toBe(0);
    const r = forge(p, ["watch", "--files", "--store", "sqlite:data/forge.db"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^forge: the store .*data\/forge\.db is inside the watched folder .* every snapshot would change the files watched \(keep the store in \.forge\/ /,
    );
  });

  it("usage errors exit 2: a duration without a unit", () => {
    const p = place("watch-usage");
    const r = forge(p, ["watch", "--every", "10"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^forge: .*"10" is not a duration/);
  });
});
