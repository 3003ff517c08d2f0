// docs/AGENTS.md's worked session, played through `forge mcp` with the SDK's client: every
// ```json mcp block is a tool call made in order, every ```js file=NAME block is the agent
// writing a file with its own edit tool, and the ```markdown brief block is the brief the
// session must end with. The guide cannot drift from what Forge does.
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTempDir, type TempDir } from "../support/temp.js";
import { BIN, startMcp, type McpHarness } from "./support.js";

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

let dir: TempDir;
let mcp: McpHarness;

beforeAll(async () => {
  dir = makeTempDir("agents-guide");
  const init = spawnSync(process.execPath, [BIN, "init"], { cwd: dir.path, encoding: "utf8", env: { ...process.env, FORGE_STORE: "" } });
  expect(init.status, init.stderr).toBe(0);
  mcp = await startMcp(dir.path, [], { PATH: `${resolve(process.execPath, "..")}:${process.env["PATH"] ?? ""}` });
});
afterAll(async () => {
  await mcp?.close();
  dir?.remove();
});

describe("docs/AGENTS.md", () => {
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
