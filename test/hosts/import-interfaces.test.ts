// agent_import is one operation in every interface: the web page's POST /api/agent/import
// (and GET /api/agent/sessions), and the MCP server's `agent_import` tool of the full
// profile, each over a fake home holding a Claude Code and a Codex session of the project.
import { randomUUID } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore, type Store } from "../../src/index.js";
import { startUi, type RunningUi } from "../../src/ui/server.js";
import { startMcp } from "../mcp/support.js";
import { ok } from "../support/cli.js";
import { makeTempDir, type TempDir } from "../support/temp.js";
import { FakeHome, forgeIn, type ImportJson, turn } from "./import-support.js";

let dir: TempDir;
let project: string;
let fake: FakeHome;
const ids = { cc: randomUUID(), cx: randomUUID() };

beforeAll(() => {
  dir = makeTempDir("agent-import-interfaces");
  project = join(dir.path, "project");
  mkdirSync(project);
  fake = new FakeHome(join(dir.path, "home"));
  fake.claude(ids.cc, project, [turn("W1 from the web page")]);
  fake.codex(ids.cx, project, [turn("M1 through MCP")]);
  ok(forgeIn(project, fake.home, ["init"]));
});
afterAll(() => dir.remove());

describe("agent_import over the web page's API", () => {
  const VARS = ["HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "COPILOT_HOME"] as const;
  const saved: Partial<Record<(typeof VARS)[number], string>> = {};
  let store: Store;
  let ui: RunningUi;
  let base: string;

  beforeAll(async () => {
    // The server runs in this process: the hosts' folders are found under its HOME.
    for (const v of VARS) {
      if (process.env[v] !== undefined) saved[v] = process.env[v];
      delete process.env[v];
    }
    process.env["HOME"] = fake.home;
    store = await openStore(`sqlite:${join(project, ".forge", "forge.db")}`);
    ui = await startUi(store, { port: 0, pollMs: 200, root: project });
    base = `http://127.0.0.1:${ui.port}`;
  });
  afterAll(async () => {
    await ui?.close();
    await store?.close();
    for (const v of VARS) {
      if (saved[v] === undefined) delete process.env[v];
      else process.env[v] = saved[v];
    }
  });

  const post = (path: string, body: unknown) =>
    fetch(base + path, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: base, Authorization: `Bearer ${ui.token}` },
      body: JSON.stringify(body),
    });

  it("imports the Claude Code session named by the body's hosts, and lists it", async () => {
    const res = await post("/api/agent/import", { hosts: ["claude-code"] });
    expect(res.status).toBe(200);
    const r = (await res.json()) as ImportJson;
    expect(r.sessions.map((s) => [s.host, s.sessionId, s.status])).toEqual([["claude-code", ids.cc, "new"]]);
    const listed = (await (await fetch(`${base}/api/agent/sessions`, { headers: { Authorization: `Bearer ${ui.token}` } })).json()) as {
      sessions: { sessionId: string }[];
    };
    expect(listed.sessions.map((s) => s.sessionId)).toEqual([ids.cc]);
  });

  it("refuses a body its schema does not take, naming the field", async () => {
    const res = await post("/api/agent/import", { host: "codex" });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toMatch(/host/);
  });
});

describe("agent_import as an MCP tool of the full profile", () => {
  it("imports the Codex session and reports it in its structured result", async () => {
    const mcp = await startMcp(project, [], { HOME: fake.home, CLAUDE_CONFIG_DIR: "", CODEX_HOME: "", GEMINI_CLI_HOME: "", COPILOT_HOME: "" });
    try {
      const r = (await mcp.ok("agent_import", { hosts: ["codex"] })) as unknown as ImportJson;
      expect(r.sessions.map((s) => [s.host, s.sessionId, s.status, s.prompts])).toEqual([["codex", ids.cx, "new", 1]]);
      const again = (await mcp.ok("agent_import", {})) as unknown as ImportJson;
      expect(again.imported).toEqual({ new: 0, added: 0, entries: 0, prompts: 0 });
    } finally {
      await mcp.close();
    }
  });
});
