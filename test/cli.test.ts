// The `forge` command as a user runs it: a real process, a real SQLite store in a temp folder.
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { forge, initStore, json } from "./support/cli.js";

interface Cp {
  id: string;
  seq: number;
  branch: string;
  tags: string[];
}

let dir: string;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "forge-cli-"));
  await initStore(dir);
  writeFileSync(join(dir, "s1.json"), JSON.stringify({ h: [{ id: "h1", confidence: 0.6 }], notes: ["é ✓"] }));
  writeFileSync(join(dir, "s2.json"), JSON.stringify({ h: [{ id: "h1", confidence: 0.9 }], notes: ["é ✓", "two"] }));
});

function create(message: string, file: string, ...extra: string[]): Cp {
  return json<{ checkpoint: Cp }>(forge(dir, ["checkpoint", "create", message, "--state", file, "--json", ...extra])).checkpoint;
}

describe("forge CLI", () => {
  it("init creates .forge/forge.db and says so", () => {
    const fresh = mkdtempSync(join(tmpdir(), "forge-cli-init-"));
    const r = forge(fresh, ["init"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Initialized empty Forge store/);
    expect(existsSync(join(fresh, ".forge", "forge.db"))).toBe(true);
    expect(forge(fresh, ["init"]).stdout).toMatch(/Reinitialized existing/);
  });

  it("creates checkpoints with tags and lists them, filtered by tag", () => {
    const a = create("first", "s1.json", "--tags", "q4_0,verified");
    const b = create("second", "s2.json");
    expect([a.seq, b.seq]).toEqual([1, 2]);
    expect(a.tags).toEqual(["q4_0", "verified"]);
    const all = json<{ checkpoints: Cp[] }>(forge(dir, ["checkpoint", "list", "--json"]));
    expect(all.checkpoints.map((c) => c.id)).toEqual([a.id, b.id]);
    const tagged = json<{ checkpoints: Cp[] }>(forge(dir, ["checkpoint", "list", "--tag", "q4_0", "--json"]));
    expect(tagged.checkpoints.map((c) => c.id)).toEqual([a.id]);
  });

  it("reads the state from standard input with --state -", () => {
    const cp = json<{ checkpoint: Cp }>(forge(dir, ["checkpoint", "create", "piped", "--state", "-", "--json"], { input: '{"piped":true}' })).checkpoint;
    const shown = json<{ state: unknown }>(forge(dir, ["checkpoint", "show", cp.id, "--json"]));
    expect(shown.state).toEqual({ piped: true });
  });

  it("restores by a short prefix to a file, exactly", () => {
    const a = create("first", "s1.json");
    create("second", "s2.json");
    const r = forge(dir, ["checkpoint", "restore", a.id.slice(0, 8).toLowerCase(), "--output", "out.json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, "out.json"), "utf8"))).toEqual(JSON.parse(readFileSync(join(dir, "s1.json"), "utf8")));
    expect(r.stdout).toMatch(/HEAD is detached at #1/);
  });

  it("forks a new branch after restoring an older checkpoint, keeping the old future", () => {
    create("first", "s1.json");
    const second = create("second", "s2.json");
    forge(dir, ["checkpoint", "restore", "#1", "--output", "o.json"]);
    const third = create("third", "s2.json");
    expect(third.branch).toBe("main-from-1");
    const branches = json<{ branches: { name: string; head: Cp }[] }>(forge(dir, ["checkpoint", "branches", "--json"]));
    expect(branches.branches.map((b) => [b.name, b.head.id])).toEqual([
      ["main", second.id],
      ["main-from-1", third.id],
    ]);
    const tl = forge(dir, ["checkpoint", "timeline"]);
    expect(tl.stdout.split("\n")).toContain("|/");
  });

  it("diff names the changed paths", () => {
    create("first", "s1.json");
    create("second", "s2.json");
    const d = json<{ changes: { kind: string; at: string }[]; summary: string }>(forge(dir, ["checkpoint", "diff", "#1", "#2", "--json"]));
    expect(d.changes.map((c) => `${c.kind} ${c.at}`)).toEqual(["changed h[0].confidence", "added notes[1]"]);
    expect(d.summary).toMatch(/1 changed, 1 added/);
  });

  it("answers a time-travel query and quotes a time it cannot read", () => {
    const a = create("first", "s1.json");
    const r = json<{ checkpoint: Cp }>(forge(dir, ["checkpoint", "at", new Date().toISOString(), "--json"]));
    expect(r.checkpoint.id).toBe(a.id);
    const bad = forge(dir, ["checkpoint", "at", "the day the music died"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^forge: "the day the music died": cannot read it as a time \(/);
    const before = forge(dir, ["checkpoint", "at", "2001-01-01 00:00:00"]);
    expect(before.code).toBe(1);
    expect(before.stderr).toMatch(/no checkpoint at or before/);
  });

  it("reports an unknown ref on stderr with exit 1 and no stack trace", () => {
    create("first", "s1.json");
    const r = forge(dir, ["checkpoint", "show", "zzzzzzzz"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^forge: no checkpoint matches "zzzzzzzz" \(/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("refuses a non-JSON state file and writes nothing", () => {
    create("first", "s1.json");
    writeFileSync(join(dir, "bad.json"), "{not json");
    const r = forge(dir, ["checkpoint", "create", "bad", "--state", "bad.json"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^forge: bad\.json is not JSON/);
    expect(json<{ checkpoints: Cp[] }>(forge(dir, ["checkpoint", "list", "--json"])).checkpoints).toHaveLength(1);
  });

  it("exits 2 on usage errors (unknown command, missing argument, bad number), 1 when there is no state to save", () => {
    expect(forge(dir, ["checkpoint", "bogus"]).code).toBe(2);
    expect(forge(dir, ["checkpoint", "restore"]).code).toBe(2);
    const badLimit = forge(dir, ["checkpoint", "list", "--limit", "lots"]);
    expect(badLimit.code).toBe(2);
    expect(badLimit.stderr).toMatch(/^forge: .*"lots" is not a whole number/);
    // Not a usage error: the session might have had a working state to save (the MCP tool says the same).
    const noState = forge(dir, ["checkpoint", "create", "x"]);
    expect(noState.code).toBe(1);
    expect(noState.stderr).toMatch(/^forge: no state given/);
  });

  it("exports a bundle that another store imports, and refuses a tampered one", async () => {
    const a = create("first", "s1.json", "--tags", "t");
    create("second", "s2.json");
    expect(forge(dir, ["checkpoint", "export", "--output", "b.bundle"]).code).toBe(0);
    const other = mkdtempSync(join(tmpdir(), "forge-cli-other-"));
    await initStore(other);
    expect(forge(other, ["checkpoint", "import", join(dir, "b.bundle")]).code).toBe(0);
    expect(json<{ state: unknown }>(forge(other, ["checkpoint", "show", a.id, "--json"])).state).toEqual(
      JSON.parse(readFileSync(join(dir, "s1.json"), "utf8")),
    );
    const bytes = readFileSync(join(dir, "b.bundle"));
    const mid = Math.floor(bytes.length / 2);
    bytes[mid] = (bytes[mid] as number) ^ 0xff;
    writeFileSync(join(dir, "t.bundle"), bytes);
    const third = mkdtempSync(join(tmpdir(), "forge-cli-third-"));
    await initStore(third);
    const r = forge(third, ["checkpoint", "import", join(dir, "t.bundle")]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^forge: not a valid Forge bundle/);
    expect(json<{ sessions: unknown[] }>(forge(third, ["session", "list", "--json"])).sessions).toEqual([]);
  });

  it("prunes to the last checkpoint and gc frees what only the others used", () => {
    create("first", "s1.json");
    create("second", "s2.json");
    const p = json<{ deleted: Cp[] }>(forge(dir, ["checkpoint", "prune", "--keep-last", "1", "--json"]));
    expect(p.deleted.map((c) => c.seq)).toEqual([1]);
    const gc = json<{ deleted: number }>(forge(dir, ["gc", "--grace", "0", "--json"]));
    expect(gc.deleted).toBeGreaterThan(0);
    const fsck = json<{ ok: boolean; checkpoints: number }>(forge(dir, ["fsck", "--json"]));
    expect(fsck).toMatchObject({ ok: true, checkpoints: 1 });
  });

  it("keeps sessions apart with --session", () => {
    create("in default", "s1.json");
    json<{ checkpoint: Cp }>(forge(dir, ["--session", "other", "checkpoint", "create", "in other", "--state", "s2.json", "--json"]));
    const sessions = json<{ sessions: { name: string; checkpoints: number }[] }>(forge(dir, ["session", "list", "--json"]));
    expect(sessions.sessions.map((s) => [s.name, s.checkpoints])).toEqual([
      ["default", 1],
      ["other", 1],
    ]);
  });

  it("demo tells its story on a temporary store", () => {
    const r = forge(dir, ["demo"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/auto checkpoint #\d+ "auto: H1 confirmed" \[auto, hypothesis-status, significant\]/);
    expect(r.stdout).toMatch(/switches back to main; the SIMD attempt stays on its branch/);
    expect(r.stdout).toMatch(/what did the agent believe two hours ago\?\n\s+checkpoint #1 "Initial observations"/);
    expect(r.stdout).toMatch(/# Brief: q4-dequant-/);
    expect(r.stdout).toMatch(/fsck: the store is whole/);
  });
});
