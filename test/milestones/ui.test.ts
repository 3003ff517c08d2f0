// The web page and its API show milestones: the session API lists them, and the timeline in
// real Chromium marks their two ends. A real SQLite store; the page is the built one (dist/).
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore, type Store } from "../../src/index.js";
import { startUi, type RunningUi } from "../../src/ui/server.js";
import { launchChromium } from "../support/chromium.js";
import { makeTempDir, type TempDir } from "../support/temp.js";

let dir: TempDir;
let store: Store;
let ui: RunningUi;
let browser: Browser | undefined;
const ids: string[] = [];

beforeAll(async () => {
  dir = makeTempDir("milestone-ui");
  store = await openStore(`sqlite:${dir.path}/forge.db`);
  const s = await store.session("notes");
  for (let i = 1; i <= 4; i++) ids.push((await s.checkpoint({ step: i }, { message: `step ${i}` })).id);
  await s.createMilestone("parser", { from: "#2", to: "#3", description: "rewrote the parser" });
  ui = await startUi(store, { port: 0, pollMs: 200 });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await ui?.close();
  await store?.close();
  dir?.remove();
});

describe("milestones on the web page", () => {
  it("the session API returns the session's milestones", async () => {
    const detail = (await (await fetch(`${ui.url}api/sessions/notes`)).json()) as { milestones: unknown[] };
    expect(detail.milestones).toEqual([{ name: "parser", fromId: ids[1], toId: ids[2], description: "rewrote the parser" }]);
  });

  it("the timeline marks a milestone's start and end", async () => {
    browser = await launchChromium();
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(ui.url);
    await page.locator(".sessions button", { hasText: "notes" }).click();
    await expect.poll(() => page.locator(".timeline .row").count()).toBe(4);
    expect(await page.locator(".row[data-seq='2'] .badge.milestone").textContent()).toBe("◆ parser start");
    expect(await page.locator(".row[data-seq='3'] .badge.milestone").textContent()).toBe("◆ parser end");
    expect(await page.locator(".row[data-seq='3'] .badge.milestone").getAttribute("title")).toBe("rewrote the parser");
    expect(await page.locator(".row[data-seq='4'] .badge.milestone").count()).toBe(0);
    expect(errors).toEqual([]);
  });
});
