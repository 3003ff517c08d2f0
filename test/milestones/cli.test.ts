// `forge milestone …` and `forge checkpoint squash` as a user runs them: real processes, a
// real SQLite store in a temp folder.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { forge as runForge, json, type Run } from "../support/cli.js";

interface Cp {
  id: string;
  seq: number;
  parentId: string | null;
  message: string;
  tags: string[];
  stateRoot: string;
  metadata: Record<string, unknown>;
}

let dir: string;

function forge(...args: string[]): Run {
  return forgeIn(dir, ...args);
}

/** `forge` run in another folder: another store. */
function forgeIn(cwd: string, ...args: string[]): Run {
  return runForge(cwd, args);
}

/** `count` checkpoints "step 1".."step N" of states {step: N}. */
function steps(count: number): Cp[] {
  const out: Cp[] = [];
  for (let i = 1; i <= count; i++) {
    writeFileSync(join(dir, "s.json"), JSON.stringify({ step: i, log: Array.from({ length: i }, (_, k) => `line ${k}`) }));
    out.push(json<{ checkpoint: Cp }>(forge("checkpoint", "create", `step ${i}`, "--state", "s.json", "--trigger", "auto", "--json")).checkpoint);
  }
  return out;
}

const list = () => json<{ checkpoints: Cp[] }>(forge("checkpoint", "list", "--json")).checkpoints;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "forge-milestone-cli-"));
  expect(forge("init").code).toBe(0);
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("forge milestone", () => {
  it("creates, lists, shows and deletes a milestone", () => {
    const cps = steps(4);
    const made = json<{ name: string; description: string; from: Cp; to: Cp }>(
      forge("milestone", "create", "m1", "--from", "#2", "--to", "#4", "-d", "the middle", "--json"),
    );
    expect([made.name, made.description, made.from.id, made.to.id]).toEqual(["m1", "the middle", cps[1]?.id, cps[3]?.id]);
    expect(forge("milestone", "list").stdout).toMatch(/^m1 {2}#2 → #4 {2}.*the middle$/m);
    const listed = json<{ milestones: { name: string }[] }>(forge("milestone", "list", "--json"));
    expect(listed.milestones.map((m) => m.name)).toEqual(["m1"]);
    const show = forge("milestone", "show", "m1");
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/^milestone m1: #2 → #4, 3 checkpoints$/m);
    expect(show.stdout).toMatch(/#3 .* step 3/);
    expect(show.stdout).toMatch(/~ step: 2 → 4/);
    expect(json<{ deleted: { name: string } }>(forge("milestone", "delete", "m1", "--json")).deleted.name).toBe("m1");
    expect(forge("milestone", "list").stdout).toMatch(/no milestones in session "default"/);
  });

  it("show --json gives the same change as `checkpoint diff --json` of its ends, and the checkpoints it spans", () => {
    steps(4);
    forge("milestone", "create", "m1", "--from", "#1", "--to", "#3");
    const show = json<{ change: { files: unknown }; checkpoints: Cp[] }>(forge("milestone", "show", "m1", "--json"));
    expect(show.change).toEqual(json(forge("checkpoint", "diff", "#1", "#3", "--json")));
    expect(show.checkpoints.map((c) => c.seq)).toEqual([1, 2, 3]);
    expect(show.change.files).toBeNull();
  });

  it("refuses bad input with a forge: message that names it, and writes nothing", () => {
    steps(3);
    const notAncestor = forge("milestone", "create", "m", "--from", "#3", "--to", "#1");
    expect(notAncestor.code).toBe(1);
    expect(notAncestor.stderr).toMatch(/^forge: #3 is not an ancestor of #1: a milestone runs from a checkpoint to a later one on its history \(/);
    const unknown = forge("milestone", "show", "nope");
    expect([unknown.code, unknown.stderr]).toEqual([1, 'forge: session "default" has no milestone "nope" (run `forge milestone list` to see them)\n']);
    expect(forge("milestone", "create", "m").code).toBe(2); // --from is required
    expect(forge("milestone", "create", "a b", "--from", "#1").stderr).toMatch(/^forge: invalid milestone name "a b"/);
    forge("milestone", "create", "m", "--from", "#1");
    expect(forge("milestone", "create", "m", "--from", "#1").stderr).toMatch(/^forge: session "default" already has a milestone "m"/);
    expect(json<{ milestones: unknown[] }>(forge("milestone", "list", "--json")).milestones.length).toBe(1);
  });

  it("protects its ends from prune, and the timeline and list mark them", () => {
    steps(6);
    forge("milestone", "create", "m1", "--from", "#2", "--to", "#4");
    const report = json<{ kept: { reason: string; checkpoint: Cp }[] }>(forge("checkpoint", "prune", "--keep-last", "1", "--json"));
    expect(report.kept.map((k) => [k.checkpoint.seq, k.reason])).toEqual([
      [2, "milestone"],
      [4, "milestone"],
      [6, "branch head"],
    ]);
    const timeline = forge("checkpoint", "timeline").stdout;
    expect(timeline).toMatch(/#4 .*step 4 .*\(◆ m1 end\)/);
    expect(timeline).toMatch(/#2 .*step 2 .*\(◆ m1 start\)/);
    expect(forge("checkpoint", "list").stdout).toMatch(/#2 .*step 2 .*◆ m1 start/);
    const tl = json<{ milestones: { name: string; fromId: string; toId: string }[] }>(forge("checkpoint", "timeline", "--json"));
    expect(tl.milestones.map((m) => m.name)).toEqual(["m1"]);
    expect(json<{ milestones: unknown[] }>(forge("checkpoint", "list", "--json")).milestones.length).toBe(1);
  });
});

describe("forge checkpoint export / import with milestones", () => {
  interface Ms {
    name: string;
    description: string;
    from: Cp;
    to: Cp;
  }
  const milestones = (run: (...args: string[]) => Run, ...session: string[]) =>
    json<{ milestones: Ms[] }>(run(...session, "milestone", "list", "--json")).milestones.map((m) => [m.name, m.from.id, m.to.id, m.description]);

  it("carries the milestones, says which a partial export leaves out, and refuses a clashing one on import", () => {
    const cps = steps(4);
    forge("milestone", "create", "m1", "--from", "#1", "--to", "#3", "-d", "first part");
    forge("milestone", "create", "m2", "--from", "#2", "--to", "#4");
    const exported = forge("checkpoint", "export", "--output", "b.bundle");
    expect([exported.code, exported.stderr]).toEqual([0, ""]);
    expect(exported.stdout).toMatch(/^exported 4 checkpoints and 2 milestones \(/);
    const partial = json<{ checkpoints: number; milestones: number; milestonesLeftOut: unknown[] }>(
      forge("checkpoint", "export", "#3", "#4", "--output", "p.bundle", "--json"),
    );
    expect(partial).toMatchObject({ checkpoints: 2, milestones: 0 });
    expect(partial.milestonesLeftOut).toEqual([
      { session: "default", name: "m1", reason: "its start #1 is not in the bundle" },
      { session: "default", name: "m2", reason: "its start #2 is not in the bundle" },
    ]);
    expect(forge("checkpoint", "export", "#2", "#4", "--output", "q.bundle").stdout).toMatch(
      /^left out milestone m2: #3, between its ends, is not in the bundle$/m,
    );

    // Another store gets them on the same checkpoints.
    const other = join(dir, "other");
    mkdirSync(other);
    const there = (...args: string[]) => forgeIn(other, ...args);
    expect(there("init").code).toBe(0);
    const imported = there("checkpoint", "import", join(dir, "b.bundle"));
    expect([imported.code, imported.stderr]).toEqual([0, ""]);
    expect(imported.stdout).toMatch(/^created session default: 4 checkpoints imported; 2 milestones imported$/m);
    expect(milestones(there)).toEqual([
      ["m1", cps[0]?.id, cps[2]?.id, "first part"],
      ["m2", cps[1]?.id, cps[3]?.id, ""],
    ]);
    expect(there("checkpoint", "import", join(dir, "b.bundle")).stdout).toMatch(
      /^updated session default: 0 checkpoints imported, 4 already here; 0 milestones imported, 2 already here$/m,
    );

    // A milestone of the same name with other ends: refused, naming it, and nothing changes.
    there("milestone", "delete", "m1");
    there("milestone", "create", "m1", "--from", "#2", "--to", "#3");
    const before = milestones(there);
    const clash = there("checkpoint", "import", join(dir, "b.bundle"));
    expect(clash.code).toBe(1);
    expect(clash.stdout).toBe("");
    expect(clash.stderr).toMatch(
      /^forge: session "default" already has a milestone "m1" from #2 to #3; the bundle's runs from #1 to #3 \(delete this store's milestone first \(forge milestone delete m1\), or import the bundle as a new session with --as NAME\)/,
    );
    expect(milestones(there)).toEqual(before);

    // --as: a copy beside the original, its milestones on its own checkpoints.
    const copy = there("checkpoint", "import", join(dir, "b.bundle"), "--as", "copy");
    expect([copy.code, copy.stdout]).toEqual([0, expect.stringMatching(/^created session copy: 4 checkpoints imported; 2 milestones imported$/m)]);
    const copied = json<{ milestones: Ms[] }>(there("--session", "copy", "milestone", "list", "--json")).milestones;
    expect(copied.map((m) => [m.name, m.from.seq, m.to.seq, m.description])).toEqual([
      ["m1", 1, 3, "first part"],
      ["m2", 2, 4, ""],
    ]);
    expect(copied.map((m) => m.from.id)).not.toContain(cps[0]?.id);
    expect(milestones(there)).toEqual(before);
    expect(there("fsck").code).toBe(0);
  });
});

describe("forge checkpoint squash", () => {
  it("folds a run into one checkpoint with the end state, leaves fsck clean, and gc frees what only the run used", () => {
    const cps = steps(5);
    const endState = json<{ state: unknown }>(forge("checkpoint", "show", "#4", "--json")).state;
    const r = json<{ checkpoint: Cp; replaced: Cp[]; reparented: { seq: number; to: string }[] }>(forge("checkpoint", "squash", "#2..#4", "--json"));
    expect(r.replaced.map((c) => c.seq)).toEqual([2, 3, 4]);
    expect(r.checkpoint).toMatchObject({ seq: 4, parentId: cps[0]?.id, message: "step 2; step 3; step 4", stateRoot: cps[3]?.stateRoot });
    expect(r.reparented).toEqual([{ checkpoint: cps[4]?.id, seq: 5, from: cps[3]?.id, to: r.checkpoint.id }]);
    expect(list().map((c) => c.seq)).toEqual([1, 4, 5]);
    expect(json<{ state: unknown }>(forge("checkpoint", "show", "#4", "--json")).state).toEqual(endState);
    const squashed = (r.checkpoint.metadata["squashed"] as { replaced: { id: string; seq: number; message: string }[] }).replaced;
    expect(squashed.map((x) => [x.id, x.seq, x.message])).toEqual(cps.slice(1, 4).map((c) => [c.id, c.seq, c.message]));
    const gone = forge("checkpoint", "show", cps[2]?.id ?? "");
    expect([gone.code, gone.stderr]).toEqual([1, expect.stringMatching(/^forge: no checkpoint matches/)]);
    const fsck = forge("fsck");
    expect([fsck.code, fsck.stdout]).toEqual([0, expect.stringMatching(/ok: the store is whole/)]);
    const gc = json<{ deleted: number }>(forge("gc", "--grace", "0", "--json"));
    expect(gc.deleted).toBeGreaterThan(0);
    expect(forge("fsck").code).toBe(0);
    expect(json<{ state: unknown }>(forge("checkpoint", "show", "#4", "--json")).state).toEqual(endState);
  });

  it("refuses, naming each protected checkpoint, and changes nothing", () => {
    steps(5);
    forge("checkpoint", "tag", "#2", "verified");
    forge("checkpoint", "branch", "side", "--from", "#3");
    forge("milestone", "create", "m", "--from", "#1", "--to", "#4");
    const before = list();
    const r = forge("checkpoint", "squash", "#2..#5");
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^forge: cannot squash #2..#5: #2 is tagged verified; #3 is the head of branch "side"; #4 is the end of milestone "m" \(--force folds them in: /,
    );
    expect(r.stdout).toBe("");
    expect(list()).toEqual(before);
  });

  it("with --force moves tags, branches and milestone ends to the new checkpoint and says what it did", () => {
    steps(5);
    forge("checkpoint", "tag", "#2", "verified");
    forge("checkpoint", "branch", "side", "--from", "#3");
    forge("milestone", "create", "m", "--from", "#1", "--to", "#4");
    const r = forge("checkpoint", "squash", "#2..#5", "--force", "-m", "the whole fix");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^squashed #2..#5 \(4 checkpoints\) into #5 .*the whole fix {2}\[verified\]/);
    expect(r.stdout).toMatch(/forced: #3 was the head of branch "side": branch "side" moves to the squashed checkpoint/);
    expect(r.stdout).toMatch(/forced: #4 was the end of milestone "m": milestone "m" now ends at the squashed checkpoint/);
    const head = list().at(-1) as Cp;
    expect([head.seq, head.message, head.tags]).toEqual([5, "the whole fix", ["verified"]]);
    const branches = json<{ branches: { name: string; head: Cp }[] }>(forge("checkpoint", "branches", "--json")).branches;
    expect(branches.map((b) => [b.name, b.head.id])).toEqual([
      ["main", head.id],
      ["side", head.id],
    ]);
    const m = json<{ milestones: { from: Cp; to: Cp }[] }>(forge("milestone", "list", "--json")).milestones[0];
    expect([m?.from.seq, m?.to.id]).toEqual([1, head.id]);
    expect(forge("fsck").code).toBe(0);
  });

  it("rejects a malformed range as a usage error", () => {
    steps(2);
    const r = forge("checkpoint", "squash", "#1");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^forge: "#1" is not a range: write FROM..TO/);
    const one = forge("checkpoint", "squash", "#2..#2");
    expect([one.code, one.stderr]).toEqual([1, expect.stringMatching(/^forge: nothing to squash: FROM and TO are both #2/)]);
  });
});
