// `forge mcp` over stdio, driven by the SDK's client: every tool with valid arguments
// (results checked), every tool with invalid ones (a tool error, and the server answers the
// next call), resources, a store that cannot be opened, and docs/AGENTS.md's worked session
// played through it.
import { readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { forge } from "../support/cli.js";
import { makeTempDir, type TempDir } from "../support/temp.js";
import { startMcp, type McpHarness } from "./support.js";

const TOOLS = [
  "checkpoint_create",
  "checkpoint_list",
  "search",
  "checkpoint_show",
  "checkpoint_compare",
  "checkpoint_restore",
  "checkpoint_at",
  "timeline",
  "session_list",
  "task_set",
  "hypothesis_add",
  "hypothesis_update",
  "hypothesis_list",
  "evidence_add",
  "belief_add",
  "belief_retract",
  "belief_list",
  "contradictions",
  "gap_add",
  "gap_fill",
  "gap_list",
  "note_add",
  "verify",
  "brief",
  "recover",
  "experiment_branch",
  "experiment_switch",
  "files_snapshot",
  "files_status",
  "files_diff",
  "files_restore",
  "files_log",
  "agent_import",
  "blame",
  "why",
].sort();

let dir: TempDir;
let mcp: McpHarness;

beforeAll(async () => {
  dir = makeTempDir("mcp");
  const init = forge(dir.path, ["init"]);
  expect(init.code, init.stderr).toBe(0);
  writeFileSync(join(dir.path, "kernel.c"), "int scale = 1;\nint dequant(int q) { return q * scale; }\n");
  writeFileSync(join(dir.path, "README"), "dequant kernels\n");
  mcp = await startMcp(dir.path);
});
afterAll(async () => {
  await mcp?.close();
  dir?.remove();
});

type Cp = { id: string; seq: number; branch: string; trigger: string; message: string; filesRoot: string | null };

describe("forge mcp", () => {
  it("lists every tool with a strict JSON schema; state-changing tools say what they change", async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(TOOLS);
    for (const t of tools) {
      expect(t.inputSchema.type, t.name).toBe("object");
      expect((t.inputSchema as { additionalProperties?: unknown }).additionalProperties, t.name).toBe(false);
      expect(t.description?.length ?? 0, t.name).toBeGreaterThan(20);
    }
    const restore = tools.find((t) => t.name === "checkpoint_restore");
    expect(restore?.description).toMatch(/CHANGES STATE/);
    expect(restore?.description).toMatch(/DELETED/);
    expect(restore?.annotations?.destructiveHint).toBe(true);
    expect(tools.find((t) => t.name === "files_restore")?.description).toMatch(/CHANGES FILES ON DISK/);
    expect(tools.find((t) => t.name === "brief")?.annotations?.readOnlyHint).toBe(true);
  });

  it("runs a reasoning session: hypotheses, evidence, beliefs, contradictions, gaps, notes, verify, brief, recover", async () => {
    expect(await mcp.ok("task_set", { task: "dequant output is 2x too large on gfx1100" })).toMatchObject({
      task: "dequant output is 2x too large on gfx1100",
    });
    const h1 = await mcp.ok("hypothesis_add", { statement: "the scale is applied twice", confidence: 0.6 });
    expect(h1).toMatchObject({ id: "H1", status: "proposed", autoCheckpoint: null });
    expect((await mcp.ok("hypothesis_add", { statement: "the block size is wrong" })).id).toBe("H2");
    const ev = await mcp.ok("evidence_add", { hypothesis: "H1", content: "removing one multiply halves the output", kind: "supports", source: "kernel.c:2" });
    expect(ev).toMatchObject({ id: "E1", hypothesisId: "H1", kind: "supports" });
    expect((ev.hypothesis as { confidence: number }).confidence).toBeGreaterThan(0.6);

    const confirmed = await mcp.ok("hypothesis_update", { id: "H1", status: "confirmed" });
    expect(confirmed).toMatchObject({ id: "H1", status: "confirmed" });
    expect((confirmed.autoCheckpoint as Cp).trigger).toBe("hypothesis-status");

    expect(((await mcp.ok("hypothesis_list", { status: "proposed" })).hypotheses as { id: string }[]).map((h) => h.id)).toEqual(["H2"]);

    await mcp.ok("belief_add", { statement: "scale is applied once in the kernel", confidence: 0.8 });
    const b2 = await mcp.ok("belief_add", { statement: "scale is applied in the kernel and the caller", dependsOn: ["H1"], contradicts: ["B1"] });
    expect(b2).toMatchObject({ id: "B2", dependsOn: ["H1"] });
    expect((b2.contradictions as { kind: string }[]).map((c) => c.kind)).toContain("conflict");
    expect(((await mcp.ok("contradictions")).contradictions as unknown[]).length).toBe(1);
    expect(await mcp.ok("belief_retract", { id: "B1" })).toMatchObject({ id: "B1", status: "retracted" });
    const beliefs = await mcp.ok("belief_list");
    expect((beliefs.beliefs as { id: string }[]).map((b) => b.id)).toEqual(["B1", "B2"]);
    expect(beliefs.contradictions).toEqual([]);

    expect(await mcp.ok("gap_add", { question: "does the caller scale too?", priority: "high" })).toMatchObject({ id: "G1", status: "open", priority: "high" });
    expect(await mcp.ok("gap_fill", { id: "G1", answer: "yes, in launch()", by: "E1" })).toMatchObject({ id: "G1", status: "filled", filledBy: "E1" });
    expect(((await mcp.ok("gap_list", { status: "filled" })).gaps as unknown[]).length).toBe(1);
    expect(await mcp.ok("note_add", { text: "fix goes in launch()", tags: ["fix"] })).toMatchObject({ text: "fix goes in launch()", tags: ["fix"] });

    const passed = await mcp.ok("verify", { name: "unit test", command: [process.execPath, "-e", "console.log('ok')"], hypothesis: "H1" });
    expect(passed).toMatchObject({ name: "unit test", passed: true, exitCode: 0, cwd: realpathSync(dir.path), hypothesisId: "H1" });
    expect(passed.evidenceId).toMatch(/^E\d+$/);
    const failed = await mcp.ok("verify", { name: "fails", command: [process.execPath, "-e", "process.exit(3)"] });
    expect(failed).toMatchObject({ passed: false, exitCode: 3 });
    const unlimited = await mcp.ok("verify", { name: "no limit", command: [process.execPath, "-e", "0"], timeoutSeconds: null });
    expect(unlimited).toMatchObject({ passed: true, error: null });

    const brief = await mcp.ok("brief");
    expect(brief.markdown).toMatch(/\*\*Task:\*\* dequant output is 2x too large/);
    expect(brief.markdown).toMatch(/H1 \*\*confirmed\*\*/);
    expect(brief.markdown).toMatch(/H2 \[proposed/);
    expect(brief).toMatchObject({ session: "default", branch: "main" });
    expect(brief.state).toBeUndefined();
    expect((await mcp.ok("brief", { includeState: true })).state).toMatchObject({ kind: "forge.reasoning", task: "dequant output is 2x too large on gfx1100" });
    const briefText = await mcp.client.callTool({ name: "brief", arguments: {} });
    expect((briefText.content as { type: string; text: string }[])[0]?.text).toBe(brief.markdown);

    const recover = await mcp.ok("recover");
    const latest = ((await mcp.ok("checkpoint_list", { limit: 1 })).checkpoints as Cp[])[0];
    expect((recover.checkpoint as Cp).id).toBe(latest?.id);
    expect(Array.isArray(recover.steps)).toBe(true);
  });

  it("creates, lists, searches, shows, compares, restores and time-travels checkpoints", async () => {
    const created = await mcp.ok("checkpoint_create", { message: "before the fix", tags: ["milestone"], files: true });
    const cp = created.checkpoint as Cp;
    expect(cp).toMatchObject({ message: "before the fix", trigger: "manual" });
    expect(cp.filesRoot).toMatch(/^[0-9a-f]+$/);
    expect((created.filesSnapshot as Cp).filesRoot).toBe(cp.filesRoot);

    const list = (await mcp.ok("checkpoint_list")).checkpoints as Cp[];
    expect(list.at(-1)?.id).toBe(cp.id); // oldest first, as `forge checkpoint list`
    expect(((await mcp.ok("checkpoint_list", { trigger: "hypothesis-status" })).checkpoints as Cp[]).every((c) => c.trigger === "hypothesis-status")).toBe(
      true,
    );
    type Hit = { checkpoint: { id: string }; kind: string; where: string };
    // The reasoning checkpoint and the snapshot made with it share the message.
    expect(((await mcp.ok("search", { query: '"BEFORE THE fix"' })).results as Hit[]).map((h) => [h.checkpoint.id, h.kind])).toContainEqual([
      cp.id,
      "messages",
    ]);
    const first = (await mcp.ok("search", { query: "dequant gfx1100", first: true })).results as Hit[];
    expect([first[0]?.where, first[0]?.kind]).toEqual(["task", "reasoning"]);

    const shown = await mcp.ok("checkpoint_show", { ref: cp.id.slice(0, 10) });
    expect((shown.checkpoint as Cp).id).toBe(cp.id);
    expect((shown.state as { task: string }).task).toBe("dequant output is 2x too large on gfx1100");

    await mcp.ok("hypothesis_add", { statement: "the caller scales again" });
    const after = (await mcp.ok("checkpoint_create", { message: "H3 proposed" })).checkpoint as Cp;
    const cmp = await mcp.ok("checkpoint_compare", { from: cp.id, to: after.id });
    expect(cmp.kind).toBe("reasoning");
    expect(JSON.stringify(cmp.changes)).toMatch(/the caller scales again/);

    const at = await mcp.ok("checkpoint_at", { time: new Date().toISOString(), includeState: false });
    expect((at.checkpoint as Cp).id).toBe(after.id);
    const tl = await mcp.ok("timeline");
    expect((tl.checkpoints as Cp[]).length).toBe(list.length + 1);
    expect(((await mcp.ok("session_list")).sessions as { name: string }[]).map((s) => s.name).sort()).toEqual(["default", "workspace"]);

    const restored = await mcp.ok("checkpoint_restore", { ref: cp.id, discardFuture: true });
    expect((restored.checkpoint as Cp).id).toBe(cp.id);
    expect((restored.discarded as Cp[]).map((c) => c.id)).toEqual([after.id]);
    expect(((await mcp.ok("hypothesis_list")).hypotheses as { id: string }[]).map((h) => h.id)).toEqual(["H1", "H2"]);
  });

  it("branches and switches experiments", async () => {
    const b = await mcp.ok("experiment_branch", { name: "try-caller" });
    expect(b).toMatchObject({ branch: "try-caller", switched: true });
    await mcp.ok("note_add", { text: "on the experiment" });
    await mcp.ok("checkpoint_create", { message: "experiment" });
    const back = await mcp.ok("experiment_switch", { name: "main" });
    expect(back.branch).toBe("main");
    expect((back.checkpoint as Cp).branch).toBe("main");
    expect(((await mcp.ok("checkpoint_list", { branch: "try-caller" })).checkpoints as Cp[]).map((c) => c.message)).toContain("experiment");
  });

  it("snapshots, diffs and restores the workspace's files", async () => {
    const snap = await mcp.ok("files_snapshot", { message: "clean" });
    const base = snap.snapshot as Cp;
    writeFileSync(join(dir.path, "kernel.c"), "int scale = 1;\nint dequant(int q) { return q; }\n");
    writeFileSync(join(dir.path, "notes.txt"), "new\n");
    const status = await mcp.ok("files_status");
    expect((status.changes as { path: string; kind: string }[]).map((c) => `${c.kind} ${c.path}`).sort()).toEqual(["created notes.txt", "modified kernel.c"]);
    expect((status.changes as { path: string; before: unknown; after: unknown }[]).find((c) => c.path === "notes.txt")).toMatchObject({
      before: null,
      after: { type: "f", mode: "644", size: 4 },
    });
    const diff = await mcp.ok("files_diff", { paths: ["kernel.c"] });
    const files = diff.files as { path: string; patch: string }[];
    expect(files.map((f) => f.path)).toEqual(["kernel.c"]);
    expect(files[0]?.patch).toMatch(/-int dequant\(int q\) \{ return q \* scale; \}\n\+int dequant\(int q\) \{ return q; \}/);
    // A client that reads only text gets the unified patches themselves.
    const diffText = (await mcp.client.callTool({ name: "files_diff", arguments: { paths: ["kernel.c"] } })).content as { type: string; text: string }[];
    expect(diffText[0]?.text).toMatch(/^-int dequant\(int q\) \{ return q \* scale; \}\n\+int dequant\(int q\) \{ return q; \}$/m);
    expect((await mcp.ok("files_diff", { stat: true })).counts).toMatchObject({ created: 1, modified: 1 });

    const dry = await mcp.ok("files_restore", { ref: base.id, dryRun: true });
    expect(dry).toMatchObject({ dryRun: true, written: ["kernel.c"], deleted: ["notes.txt"], safety: null, restored: null });
    expect(readFileSync(join(dir.path, "kernel.c"), "utf8")).toMatch(/return q;/);
    const r = await mcp.ok("files_restore", { ref: base.id });
    expect(r).toMatchObject({ dryRun: false, written: ["kernel.c"], deleted: ["notes.txt"] });
    expect((r.safety as Cp).id).toMatch(/\w+/);
    expect(readFileSync(join(dir.path, "kernel.c"), "utf8")).toMatch(/return q \* scale;/);
    const log = (await mcp.ok("files_log", { limit: 3 })).snapshots as Cp[];
    expect(log.map((c) => c.id)).toContain((r.safety as Cp).id);
  });

  it("records no snapshot when nothing changed, and restores some paths leaving HEAD alone, as the CLI does", async () => {
    const kernel = (scale: number) => writeFileSync(join(dir.path, "kernel.c"), `int scale = ${scale};\nint dequant(int q) { return q * scale; }\n`);
    kernel(2);
    const first = await mcp.ok("files_snapshot", { message: "scale 2" });
    const again = await mcp.ok("files_snapshot", { message: "again" });
    expect(first.recorded).toBe(true);
    expect(again).toMatchObject({ recorded: false, changes: { created: 0, modified: 0, deleted: 0, renamed: 0 }, newBytes: 0 });
    expect((again.snapshot as Cp).id).toBe((first.snapshot as Cp).id);
    kernel(3);
    const second = (await mcp.ok("files_snapshot", { message: "scale 3" })).snapshot as Cp;

    const r = await mcp.ok("files_restore", { ref: (first.snapshot as Cp).id, paths: ["kernel.c"] });
    expect(r).toMatchObject({ partial: true, restored: null, safety: null, written: ["kernel.c"], undo: { paths: ["kernel.c"], created: [] } });
    expect((r.undo as { snapshot: Cp }).snapshot.id).toBe(second.id);
    expect(readFileSync(join(dir.path, "kernel.c"), "utf8")).toMatch(/scale = 2;/);
    expect(((await mcp.ok("files_log", { limit: 1 })).snapshots as Cp[])[0]?.id).toBe(second.id);
    expect(await mcp.fails("files_restore", { ref: second.id, paths: ["no-such-file.c"] })).toMatch(/^forge: snapshot #\d+ \S+ holds no "no-such-file.c"/);
    // Undone by what it named: the files are as before, and nothing is left to snapshot.
    await mcp.ok("files_restore", { ref: second.id, paths: ["kernel.c"] });
    expect(readFileSync(join(dir.path, "kernel.c"), "utf8")).toMatch(/scale = 3;/);
    expect((await mcp.ok("files_status")).changes).toEqual([]);
  });

  it("blames a file: no agent wrote a line made outside any captured session, and why says so", async () => {
    const b = await mcp.ok("blame", { path: "README:1" });
    expect(b).toMatchObject({ path: "README", total: 1, lines: [{ line: 1, text: "dequant kernels", agent: false, prompt: null, session: null, tool: null }] });
    const w = await mcp.ok("why", { path: "README", line: 1 });
    expect(w).toMatchObject({ path: "README", line: { line: 1, agent: false }, call: null, rewind: null });
    expect(await mcp.fails("blame", { path: "../elsewhere.c" })).toMatch(/^forge: \.\.\/elsewhere\.c is outside the project/);
  });

  it("every tool answers invalid arguments with a tool error naming them, and the server goes on", async () => {
    for (const name of TOOLS) {
      const text = await mcp.fails(name, { notAnArgument: 1 });
      expect(text, name).toMatch(/notAnArgument/);
    }
    expect(await mcp.fails("hypothesis_add", { statement: 42 })).toMatch(/statement/);
    expect(await mcp.fails("checkpoint_list", { limit: -1 })).toMatch(/limit/);
    // Valid arguments, but Forge refuses: its own message comes back.
    expect(await mcp.fails("checkpoint_restore", { ref: "no-such-checkpoint" })).toMatch(/^forge: no checkpoint matches "no-such-checkpoint"/);
    expect(await mcp.fails("hypothesis_update", { id: "H99", status: "confirmed" })).toMatch(/^forge: .*H99/);
    expect(await mcp.fails("files_restore", { ref: "HEAD", paths: ["../outside"] })).toMatch(/^forge: .*outside/);
    expect(await mcp.fails("checkpoint_at", { time: "the day after never" })).toMatch(/^forge: /);
    expect(await mcp.fails("checkpoint_show", { ref: "HEAD", session: "nobody" })).toMatch(/no session named "nobody"/);
    expect(((await mcp.ok("hypothesis_list")).hypotheses as unknown[]).length).toBeGreaterThan(0);
  });

  it("serves the brief and the timeline as resources", async () => {
    const { resources } = await mcp.client.listResources();
    expect(resources.map((r) => r.uri).sort()).toEqual(["forge://brief", "forge://timeline"]);
    const brief = await mcp.client.readResource({ uri: "forge://brief" });
    expect(brief.contents[0]).toMatchObject({ mimeType: "text/markdown" });
    expect((brief.contents[0] as { text: string }).text).toMatch(/^# Brief: default/);
    const tl = JSON.parse(((await mcp.client.readResource({ uri: "forge://timeline" })).contents[0] as { text: string }).text) as { checkpoints: Cp[] };
    expect(tl.checkpoints.length).toBeGreaterThan(2);
  });
});

describe("forge mcp on a store that cannot be opened", () => {
  it("starts, answers every call with a tool error, and lists its tools", async () => {
    const d = makeTempDir("mcp-bad");
    // A folder that cannot exist: its parent is a file.
    writeFileSync(join(d.path, "a-file"), "");
    const bad = await startMcp(d.path, [], { FORGE_STORE: `sqlite:${join(d.path, "a-file", "forge.db")}` });
    try {
      expect(await bad.fails("checkpoint_list")).toMatch(/^forge: /);
      expect(await bad.fails("hypothesis_add", { statement: "x" })).toMatch(/^forge: /);
      expect((await bad.client.listTools()).tools.length).toBe(TOOLS.length);
    } finally {
      await bad.close();
      d.remove();
    }
  });
});

// docs/AGENTS.md's worked session: every ```json mcp block is a tool call made in order,
// every ```js file=NAME block is the agent writing a file with its own edit tool, and the
// ```markdown brief block is the brief the session must end with. The guide cannot drift
// from what Forge does.

const GUIDE = resolve(__dirname, "..", "..", "docs", "AGENTS.md");

type Step = { kind: "call"; tool: string; args: Record<string, unknown>; line: number } | { kind: "file"; name: string; content: string; line: number };

function parseGuide(text: string): { steps: Step[]; brief: string } {
  const steps: Step[] = [];
  let brief: string | undefined;
  const fence = /^```([^\n]*)\n([\s\S]*?)^```$/gm;
  for (const m of text.matchAll(fence)) {
    const info = (m[1] ?? "").trim();
    const body = m[2] ?? "";
    const line = text.slice(0, m.index).split("\n").length;
    if (info === "json mcp") {
      const call = JSON.parse(body) as { tool: string; arguments?: Record<string, unknown> };
      steps.push({ kind: "call", tool: call.tool, args: call.arguments ?? {}, line });
    } else if (/^\w+ file=/.test(info)) {
      steps.push({ kind: "file", name: info.replace(/^\w+ file=/, ""), content: body, line });
    } else if (info === "markdown brief") brief = body;
  }
  if (brief === undefined) throw new Error("docs/AGENTS.md has no ```markdown brief block");
  return { steps, brief };
}

/** What changes from run to run: durations and relative times. */
function stable(markdown: string): string {
  return markdown
    .replace(/\d+(\.\d+)? ?ms\b/g, "N ms")
    .replace(/\b\d+[smhd]( \d+[smhd])* (ago|of work)\b/g, "T $2")
    .replace(/just now/g, "T ago")
    .replace(/(checkpoint #\d+) [0-9A-Z]{10}\b/g, "$1 ID")
    .trimEnd();
}

describe("docs/AGENTS.md", () => {
  // Played in a store of its own, with node on PATH for the guide's verify commands.
  let dir: TempDir;
  let mcp: McpHarness;

  beforeAll(async () => {
    dir = makeTempDir("agents-guide");
    const init = forge(dir.path, ["init"]);
    expect(init.code, init.stderr).toBe(0);
    mcp = await startMcp(dir.path, [], { PATH: `${resolve(process.execPath, "..")}:${process.env["PATH"] ?? ""}` });
  });
  afterAll(async () => {
    await mcp?.close();
    dir?.remove();
  });

  it("its session runs through forge mcp and ends with the brief it shows", async () => {
    const { steps, brief } = parseGuide(readFileSync(GUIDE, "utf8"));
    expect(steps.filter((s) => s.kind === "call").length).toBeGreaterThan(15);
    for (const step of steps) {
      if (step.kind === "file") writeFileSync(join(dir.path, step.name), step.content);
      else {
        const r = await mcp.client.callTool({ name: step.tool, arguments: step.args });
        const text = (r.content as { type: string; text?: string }[]).map((c) => c.text ?? "").join("");
        expect(r.isError, `AGENTS.md line ${step.line}: ${step.tool} failed: ${text}`).toBeFalsy();
      }
    }
    const final = await mcp.ok("brief");
    expect(stable(final.markdown as string)).toBe(stable(brief));
  });
});
