// The blame view of the web page in real Chromium: a Claude Code session captured through the
// hooks `forge enable` wrote (the edit tool, a shell command, the user's edit between turns),
// then the page opens a workspace snapshot, asks for the blame of a file in its tree, and shows
// each run of lines with the prompt that wrote it (the prompt's text on hover, the tool call
// on a click), "not an agent" for the user's line, and the file as it is now or as it was.
// A screenshot of the expanded view goes to docs/screenshots/blame.png.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore, type Store } from "../../src/index.js";
import { startUi, type RunningUi } from "../../src/ui/server.js";
import { gitRepo } from "../hosts/git-support.js";
import { launchChromium } from "../support/chromium.js";
import { FORGE_BIN, forge, ok } from "../support/cli.js";
import { FakeAgent } from "../support/fake-agent.js";
import { makeTempDir, type TempDir } from "../support/temp.js";

const SHOTS = resolve(__dirname, "..", "..", "docs", "screenshots");

let dir: TempDir;
let project: string;
let store: Store;
let ui: RunningUi;
let browser: Browser;
let page: Page;
const problems: string[] = [];

beforeAll(async () => {
  dir = makeTempDir("ui-blame");
  project = join(dir.path, "project");
  const home = join(dir.path, "home");
  const bin = join(dir.path, "bin");
  for (const d of [project, home, bin]) mkdirSync(d);
  gitRepo(project);
  writeFileSync(join(bin, "forge"), `#!/bin/sh\nexec "${process.execPath}" "${FORGE_BIN}" "$@"\n`);
  chmodSync(join(bin, "forge"), 0o755);
  const path = `${bin}:${process.env["PATH"] ?? ""}`;
  ok(forge(project, ["enable", "claude-code"], { env: { HOME: home, PATH: path, CLAUDE_CONFIG_DIR: "" } }));
  const agent = new FakeAgent("claude-code", { project, home, env: { PATH: path, FORGE_HOOK_STRICT: "1" } });
  const calc = join(project, "calc.js");
  agent.start();
  agent.prompt("create calc.js with add, sub and mul");
  agent.edit("calc.js", "const add = (a, b) => a + b;\nconst sub = (a, b) => a - b;\nconst mul = (a, b) => a * b;\n");
  agent.stop();
  agent.prompt("export the helpers from the shell");
  agent.shell(`printf 'module.exports = { add, sub, mul };\\n' >> calc.js`);
  agent.stop();
  writeFileSync(calc, readFileSync(calc, "utf8").replace("a - b;", "a - b; // checked by hand"));
  agent.prompt("make mul coerce its arguments");
  agent.edit("calc.js", readFileSync(calc, "utf8").replace("a * b", "Number(a) * Number(b)"));
  agent.stop();
  // After the last snapshot, by hand: on disk only.
  writeFileSync(calc, `${readFileSync(calc, "utf8")}// todo\n`);

  store = await openStore(`sqlite:${join(project, ".forge", "forge.db")}`);
  ui = await startUi(store, { port: 0, pollMs: 200, root: project });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on("console", (m) => {
    if (m.type() === "error") problems.push(`console error: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  await page.goto(ui.url);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await ui?.close();
  await store?.close();
  dir?.remove();
  expect(problems).toEqual([]);
});

const blameRows = () => page.locator(".blame .blame-line");

describe("the blame view beside a file", () => {
  it("opens from a workspace snapshot's file tree and tags each run of lines with the prompt that wrote it", async () => {
    await page
      .locator(".sessions button")
      .filter({ has: page.locator(".session-name", { hasText: /^workspace$/ }) })
      .click();
    // The newest snapshot: after prompt 3's edit.
    await page.locator(".timeline .row").first().click();
    await page.locator(".opened .tree .file", { hasText: "calc.js" }).locator("button.file-blame").click();
    await expect.poll(() => blameRows().count()).toBe(4);
    expect(await blameRows().evaluateAll((rows) => rows.map((r) => [r.getAttribute("data-line"), r.getAttribute("data-agent")]))).toEqual([
      ["1", "true"],
      ["2", "false"],
      ["3", "true"],
      ["4", "true"],
    ]);
    expect(await page.locator(".blame .origin-tag").allTextContents()).toEqual(["P1 Write", "not an agent", "P3 Write", "P2 Bash"]);
    expect(await page.locator(".blame .code").first().textContent()).toBe("const add = (a, b) => a + b;");
    // Hover: the prompt's text.
    expect(await page.locator(".blame .origin-tag", { hasText: "P2 Bash" }).getAttribute("title")).toBe("prompt 2: export the helpers from the shell");
    expect(await page.locator(".blame-summary").textContent()).toContain("3 of 4 lines written by an agent");
  });

  it("expands a tag into the prompt, the tool call and its snapshot, and says plainly when no agent wrote a line", async () => {
    await page.locator(".blame .origin-tag", { hasText: "P3 Write" }).click();
    const detail = page.locator(".blame .blame-detail");
    await expect.poll(() => detail.count()).toBe(1);
    expect(await detail.locator(".prompt-text").textContent()).toBe("make mul coerce its arguments");
    expect(await detail.locator(".tool-name").textContent()).toBe("Write");
    expect(await detail.textContent()).toContain("--to-prompt 3");
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: join(SHOTS, "blame.png") });
    await page.locator(".blame .origin-tag", { hasText: "not an agent" }).click();
    await expect.poll(() => detail.textContent()).toContain("Not written by an agent: changed between turns");
  });

  it("shows the file as it is now when asked: the line added by hand since the last snapshot is nobody's", async () => {
    await page.locator(".blame-head input[type=checkbox]").uncheck();
    await expect.poll(() => blameRows().count()).toBe(5);
    expect(await blameRows().last().getAttribute("data-agent")).toBe("false");
    expect(await page.locator(".blame-summary").textContent()).toContain("as it is now");
    await page.locator(".blame-head button[aria-label='close blame']").click();
    await expect.poll(() => page.locator(".blame").count()).toBe(0);
  });

  it("answers the API with the operation's shape and refuses a path outside the project", async () => {
    const call = async (query: string) => {
      const r = await fetch(`http://127.0.0.1:${ui.port}/api/blame?${query}`, { headers: { Authorization: `Bearer ${ui.token}` } });
      return { status: r.status, body: (await r.json()) as Record<string, unknown> };
    };
    const r = await call("path=calc.js&start=3&end=4");
    expect(r.status).toBe(200);
    expect((r.body["lines"] as { line: number; prompt: { number: number } | null }[]).map((l) => [l.line, l.prompt?.number])).toEqual([
      [3, 3],
      [4, 2],
    ]);
    const outside = await call(`path=${encodeURIComponent("../../etc/passwd")}`);
    expect(outside.status).toBe(400);
    expect(String(outside.body["error"])).toMatch(/outside the project/);
  });
});
