// A milestone over reasoning checkpoints that carry files: its combined change is the typed
// compare of its two ends plus the file diff between their snapshots. Real SQLite files.
import Database from "better-sqlite3";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { compareCheckpoints, describeMilestone, openStore, ReasoningSession, type Store } from "../../src/index.js";
import { fileChangeJson } from "../../src/operations/shared.js";
import { Workspace } from "../../src/domains/workspace/workspace.js";
import { makeTempDir } from "../support/temp.js";

async function fixture(): Promise<{ store: Store; dir: string; url: string }> {
  const dir = makeTempDir("milestone-change");
  const url = `sqlite:${join(dir.path, "forge.db")}`;
  const store = await openStore(url);
  onTestFinished(async () => {
    await store.close();
    dir.remove();
  });
  mkdirSync(join(dir.path, "work", "src"), { recursive: true });
  return { store, dir: join(dir.path, "work"), url };
}

describe("a milestone's combined change", () => {
  it("is the typed reasoning compare of its ends plus the diff of their files", async () => {
    const { store, dir } = await fixture();
    const rs = await ReasoningSession.open(store, "debug");
    const ws = await Workspace.open(store, { root: dir, retention: false });
    const snap = async (msg: string) => (await ws.snapshot(msg)).snapshot;

    writeFileSync(join(dir, "src", "parser.ts"), "export const v = 1;\n");
    writeFileSync(join(dir, "old.txt"), "to be removed\n");
    const s1 = await snap("start");
    const h1 = rs.hypotheses.add("the tokenizer drops escapes", { confidence: 0.4 });
    await rs.checkpoint("start", { filesRoot: s1.filesRoot });

    writeFileSync(join(dir, "src", "parser.ts"), "export const v = 2;\n");
    const s2 = await snap("middle");
    rs.notes.add("escapes are handled in lexString");
    await rs.checkpoint("middle", { filesRoot: s2.filesRoot });

    writeFileSync(join(dir, "src", "lexer.ts"), "export const lex = () => [];\n");
    rmSync(join(dir, "old.txt"));
    const s3 = await snap("end");
    rs.hypotheses.update(h1.id, { status: "confirmed", confidence: 0.9 });
    rs.hypotheses.add("the parser is fine");
    await rs.checkpoint("end", { filesRoot: s3.filesRoot });

    await rs.session.createMilestone("escapes", { from: "#1", to: "#3", description: "found the escape bug" });
    const report = await describeMilestone(store, rs.session, "escapes");
    expect(report.checkpoints.map((c) => c.message)).toEqual(["start", "middle", "end"]);
    if (report.change.kind !== "reasoning") throw new Error(`expected a reasoning change, got ${report.change.kind}`);
    const typed = await rs.compare("#1", "#3");
    expect([report.change.summary, report.change.changes]).toEqual([typed.summary, typed.changes]);
    expect(report.change.changes.map((c) => c.type)).toEqual(
      expect.arrayContaining(["hypothesis-added", "hypothesis-status", "hypothesis-confidence", "note-added"]),
    );
    const files = (await ws.diff(s1.id, s3.id)).changes;
    expect(report.change.files).toEqual(files.map(fileChangeJson));
    expect(files.map((f) => [f.kind, f.path])).toEqual([
      ["deleted", "old.txt"],
      ["created", "src/lexer.ts"],
      ["modified", "src/parser.ts"],
    ]);
  });

  it("gives JSON paths with raw, as `checkpoint diff --raw` does", async () => {
    const { store } = await fixture();
    const rs = await ReasoningSession.open(store, "debug");
    rs.hypotheses.add("one");
    await rs.checkpoint("a");
    rs.hypotheses.add("two");
    await rs.checkpoint("b");
    const change = await compareCheckpoints(store, rs.session, "#1", "#2", { raw: true });
    if (change.kind !== "json") throw new Error("expected JSON paths");
    const paths = await rs.session.compare("#1", "#2");
    expect([change.summary, change.changes, change.counts]).toEqual([paths.summary, paths.changes, paths.counts]);
  });
});

describe("milestones in a SQLite file", () => {
  it("survive closing and reopening the store", async () => {
    const { store, url } = await fixture();
    const session = await store.session("s");
    for (let i = 1; i <= 3; i++) await session.checkpoint({ i }, { message: `step ${i}` });
    await session.createMilestone("m", { from: "#1", to: "#3", description: "all three" });
    const other = await openStore(url);
    try {
      const again = await other.getSession("s");
      expect((await again.milestones()).map((m) => [m.name, m.from.seq, m.to.seq, m.description])).toEqual([["m", 1, 3, "all three"]]);
      await again.deleteMilestone("m");
    } finally {
      await other.close();
    }
    expect(await session.milestones()).toEqual([]);
  });

  it("a store made before milestones existed gains them on open, its checkpoints untouched", async () => {
    const { store, dir, url } = await fixture();
    const session = await store.session("s");
    for (let i = 1; i <= 2; i++) await session.checkpoint({ i });
    await store.close();
    // Back to schema 2, as an older Forge left it.
    const db = new Database(join(dir, "..", "forge.db"));
    db.exec("DROP TABLE milestones");
    db.pragma("user_version = 2");
    db.close();
    const reopened = await openStore(url);
    try {
      const again = await reopened.getSession("s");
      expect((await again.list()).map((c) => c.seq)).toEqual([1, 2]);
      await again.createMilestone("m", { from: "#1", to: "#2" });
      expect((await again.milestones()).map((m) => m.name)).toEqual(["m"]);
    } finally {
      await reopened.close();
    }
  });
});
