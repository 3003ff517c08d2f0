// `forge mcp --profile lean` over stdio, driven by the SDK's client: a short tool list within
// its byte budget, every lean tool working in one session, the record tool's refusals; and
// the full profile unchanged, the profile's choices, FORGE_MCP_PROFILE.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MCP_OPERATIONS } from "../../src/mcp/operations.js";
import { fails, forge } from "../support/cli.js";
import { makeTempDir, type TempDir } from "../support/temp.js";
import { startMcp, type McpHarness } from "./support.js";

const LEAN_TOOLS = ["brief", "record", "checkpoint_create", "checkpoint_list", "checkpoint_compare", "checkpoint_restore", "files_diff", "files_restore"];

/** The lean tools/list result, as JSON, stays under this (docs/ARCHITECTURE.md gives the figure it has). */
const LEAN_LIST_BYTES = 8192;

type Cp = { id: string; seq: number; message: string; trigger: string; filesRoot: string | null };
type Tool = { name: string; description: string; inputSchema: { additionalProperties?: unknown }; annotations?: Record<string, unknown> };

const KERNEL = "int scale = 2;\nint dequant(int q) { return q * scale * scale; }\n";
const FIXED = "int scale = 2;\nint dequant(int q) { return q * scale; }\n";

let dir: TempDir;
let mcp: McpHarness;

beforeAll(async () => {
  dir = makeTempDir("mcp-lean");
  const init = forge(dir.path, ["init"]);
  expect(init.code, init.stderr).toBe(0);
  writeFileSync(join(dir.path, "kernel.c"), KERNEL);
  mcp = await startMcp(dir.path, [], {}, ["--profile", "lean"]);
});
afterAll(async () => {
  await mcp?.close();
  dir?.remove();
});

const kernel = () => readFileSync(join(dir.path, "kernel.c"), "utf8");

describe("forge mcp --profile lean", () => {
  it("lists at most 8 tools, in a tools/list result under 8 KB", async () => {
    const json = await mcp.toolsListJson();
    expect(Buffer.byteLength(json)).toBeLessThan(LEAN_LIST_BYTES);
    const { tools } = JSON.parse(json) as { tools: Tool[] };
    expect(tools.length).toBeLessThanOrEqual(8);
    expect(tools.map((t) => t.name)).toEqual(LEAN_TOOLS);
  });

  it("gives every tool a strict schema and a short description that says when it changes state", async () => {
    const { tools } = JSON.parse(await mcp.toolsListJson()) as { tools: Tool[] };
    for (const t of tools) {
      expect(t.inputSchema.additionalProperties, t.name).toBe(false);
      expect(t.description.length, t.name).toBeLessThanOrEqual(220);
    }
    const tool = (name: string) => tools.find((t) => t.name === name);
    expect(tool("checkpoint_restore")?.description).toMatch(/^CHANGES STATE\./);
    expect(tool("checkpoint_restore")?.annotations?.["destructiveHint"]).toBe(true);
    expect(tool("files_restore")?.description).toMatch(/^CHANGES FILES ON DISK\..*DELETING/);
    expect(tool("files_restore")?.annotations?.["destructiveHint"]).toBe(true);
    expect(tool("record")?.description).toMatch(/^Writes/);
    expect(tool("checkpoint_create")?.description).toMatch(/^Saves/);
    for (const name of ["brief", "checkpoint_list", "checkpoint_compare", "files_diff"]) expect(tool(name)?.annotations?.["readOnlyHint"], name).toBe(true);
  });

  it("records reasoning, checkpoints it with the files, finds, compares and restores both", async () => {
    expect(await mcp.ok("record", { kind: "task", text: "dequant output is 2x too large" })).toMatchObject({ task: "dequant output is 2x too large" });
    expect(await mcp.ok("record", { kind: "hypothesis", text: "the scale is applied twice", confidence: 0.6 })).toMatchObject({
      id: "H1",
      status: "proposed",
      confidence: 0.6,
    });
    const ev = await mcp.ok("record", { kind: "evidence", text: "kernel.c multiplies by scale twice", hypothesis: "H1", stance: "supports" });
    expect(ev).toMatchObject({ hypothesisId: "H1", kind: "supports" });
    expect(await mcp.ok("record", { kind: "belief", text: "the fix is in dequant()", dependsOn: ["H1"] })).toMatchObject({ id: "B1", dependsOn: ["H1"] });
    expect(await mcp.ok("record", { kind: "gap", text: "does the caller scale too?" })).toMatchObject({ id: "G1", status: "open" });
    expect(await mcp.ok("record", { kind: "gap", id: "G1", text: "no" })).toMatchObject({ id: "G1", status: "filled", answer: "no" });
    expect(await mcp.ok("record", { kind: "note", text: "one multiply too many" })).toMatchObject({ text: "one multiply too many" });

    const before = await mcp.ok("checkpoint_create", { message: "before the fix", files: true });
    const cp1 = before.checkpoint as Cp;
    expect(cp1).toMatchObject({ message: "before the fix", trigger: "manual" });
    expect(cp1.filesRoot).toMatch(/^[0-9a-f]+$/);
    const snapshot1 = before.filesSnapshot as Cp;

    // The fix, as the agent's edit tool makes it: the diff against the snapshot shows it.
    writeFileSync(join(dir.path, "kernel.c"), FIXED);
    const diff = await mcp.ok("files_diff", { paths: ["kernel.c"] });
    expect((diff.files as { path: string; patch: string }[])[0]?.patch).toMatch(/^-.*return q \* scale \* scale; \}\n\+.*return q \* scale; \}$/m);
    expect((await mcp.ok("files_diff", { stat: true })).counts).toMatchObject({ modified: 1 });

    const confirmed = await mcp.ok("record", { kind: "hypothesis", id: "H1", status: "confirmed" });
    expect(confirmed).toMatchObject({ id: "H1", status: "confirmed" });
    expect((confirmed.autoCheckpoint as Cp).trigger).toBe("hypothesis-status");
    const cp2 = (await mcp.ok("checkpoint_create", { message: "fixed", files: true })).checkpoint as Cp;

    const all = (await mcp.ok("checkpoint_list")).checkpoints as Cp[];
    expect(all.map((c) => c.id)).toContain(cp1.id);
    expect(all.at(-1)?.id).toBe(cp2.id); // oldest first
    expect(((await mcp.ok("checkpoint_list", { limit: 1 })).checkpoints as Cp[]).map((c) => c.id)).toEqual([cp2.id]);
    type Hit = { checkpoint: { id: string; seq: number } };
    expect(((await mcp.ok("checkpoint_list", { query: '"BEFORE THE"' })).results as Hit[]).map((h) => h.checkpoint.id)).toContain(cp1.id);

    const cmp = await mcp.ok("checkpoint_compare", { from: cp1.id, to: cp2.id, patches: true });
    expect(cmp.kind).toBe("reasoning");
    expect(JSON.stringify(cmp.changes)).toMatch(/confirmed/);
    expect((cmp.files as { path: string; kind: string; patch: string }[]).map((f) => `${f.kind} ${f.path}`)).toEqual(["modified kernel.c"]);
    expect(((await mcp.ok("checkpoint_compare", { from: cp1.id })).to as Cp).id).toBe(cp2.id); // to: HEAD

    // Files only, some paths: a dry run changes nothing; then kernel.c is back, and forward again.
    const dry = await mcp.ok("files_restore", { ref: snapshot1.id, paths: ["kernel.c"], dryRun: true });
    expect(dry).toMatchObject({ dryRun: true, written: ["kernel.c"] });
    expect(kernel()).toBe(FIXED);
    expect(await mcp.ok("files_restore", { ref: snapshot1.id, paths: ["kernel.c"] })).toMatchObject({ written: ["kernel.c"], partial: true });
    expect(kernel()).toBe(KERNEL);
    await mcp.ok("files_restore", { ref: "HEAD", paths: ["kernel.c"] });
    expect(kernel()).toBe(FIXED);

    // The reasoning and the code together, back to before the fix.
    const restored = await mcp.ok("checkpoint_restore", { ref: cp1.id, files: true });
    expect((restored.checkpoint as Cp).id).toBe(cp1.id);
    expect((restored.files as { written: string[] }).written).toEqual(["kernel.c"]);
    expect(kernel()).toBe(KERNEL);
    const brief = await mcp.ok("brief");
    expect(brief.markdown).toMatch(/\*\*Task:\*\* dequant output is 2x too large/);
    expect(brief.markdown).toMatch(/H1 \[proposed/);
    expect(brief.state).toBeUndefined();
    const briefText = await mcp.client.callTool({ name: "brief", arguments: {} });
    expect((briefText.content as { type: string; text: string }[])[0]?.text).toBe(brief.markdown);
  });

  it("refuses a record argument its kind does not take, naming the argument and what the kind takes", async () => {
    expect(await mcp.fails("record", { kind: "note", text: "x", confidence: 0.5 })).toMatch(
      /^forge: record kind "note" takes no "confidence"\nhint: it takes "text"$/,
    );
    expect(await mcp.fails("record", { kind: "gap", id: "G1", text: "x", status: "confirmed" })).toMatch(/record kind "gap" with id takes no "status"/);
    expect(await mcp.fails("record", { kind: "evidence", text: "x", dependsOn: ["H1"] })).toMatch(/takes no "dependsOn"/);
  });

  it("refuses a record without the text its kind needs, and a kind it does not know", async () => {
    expect(await mcp.fails("record", { kind: "task" })).toMatch(/^forge: record kind "task" needs "text"/);
    expect(await mcp.fails("record", { kind: "idea", text: "x" })).toMatch(/kind/);
    expect(await mcp.fails("record", { text: "x" })).toMatch(/kind/);
    expect(await mcp.fails("record", { kind: "hypothesis", id: "H1" })).toMatch(/nothing to update/);
  });

  it("answers an argument a lean tool does not take with a tool error naming it, and goes on", async () => {
    for (const name of LEAN_TOOLS) expect(await mcp.fails(name, { notAnArgument: 1 }), name).toMatch(/notAnArgument/);
    // Arguments the full tools take but the lean ones leave to their defaults.
    expect(await mcp.fails("checkpoint_create", { message: "x", session: "other" })).toMatch(/session/);
    expect(await mcp.fails("checkpoint_restore", { ref: "HEAD", discardFuture: true })).toMatch(/discardFuture/);
    expect(await mcp.fails("checkpoint_restore", { ref: "no-such-checkpoint" })).toMatch(/^forge: no checkpoint matches "no-such-checkpoint"/);
    expect(((await mcp.ok("checkpoint_list")).checkpoints as Cp[]).length).toBeGreaterThan(0);
  });

  it("serves the brief and the timeline as resources, as the full profile does", async () => {
    const { resources } = await mcp.client.listResources();
    expect(resources.map((r) => r.uri).sort()).toEqual(["forge://brief", "forge://timeline"]);
  });
});

describe("forge mcp profiles", () => {
  it("serves every operation of the full list by default and with --profile full, the same list either way", async () => {
    const d = makeTempDir("mcp-full");
    const byDefault = await startMcp(d.path);
    const full = await startMcp(d.path, [], {}, ["--profile", "full"]);
    try {
      const json = await full.toolsListJson();
      const names = (JSON.parse(json) as { tools: Tool[] }).tools.map((t) => t.name);
      expect(names).toEqual(MCP_OPERATIONS.map((op) => op.name));
      expect(await byDefault.toolsListJson()).toBe(json);
    } finally {
      await byDefault.close();
      await full.close();
      d.remove();
    }
  });

  it("takes the profile from FORGE_MCP_PROFILE when --profile is not given, and --profile over it", async () => {
    const d = makeTempDir("mcp-env");
    const lean = await startMcp(d.path, [], { FORGE_MCP_PROFILE: "lean" });
    const full = await startMcp(d.path, [], { FORGE_MCP_PROFILE: "lean" }, ["--profile", "full"]);
    try {
      expect((await lean.client.listTools()).tools.map((t) => t.name)).toEqual(LEAN_TOOLS);
      expect((await full.client.listTools()).tools.length).toBe(MCP_OPERATIONS.length);
    } finally {
      await lean.close();
      await full.close();
      d.remove();
    }
  });

  it("refuses a profile it does not know as a usage error naming the choices", () => {
    fails(forge(dir.path, ["mcp", "--profile", "tiny"]), 2, /'tiny' is invalid\. Allowed choices are lean, full/);
    fails(forge(dir.path, ["mcp"], { env: { FORGE_MCP_PROFILE: "tiny" } }), 2, /FORGE_MCP_PROFILE is "tiny": choose lean or full/);
  });

  it("describes the profiles in forge mcp --help, naming every lean tool", () => {
    const r = forge(dir.path, ["mcp", "--help"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/--profile <name>/);
    for (const name of LEAN_TOOLS) expect(r.stdout, name).toMatch(new RegExp(`\\b${name}\\b`));
  });
});
