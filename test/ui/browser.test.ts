// The web page in real Chromium (Debian's, driven by playwright-core): a store with a
// conversation and a reasoning session; see the timeline, open a checkpoint, compare two,
// restore one through the dialog and see the state change, append a message and save,
// and watch a checkpoint another process makes appear. Any console error fails the test.
// Screenshots of the timeline and the compare view go to docs/screenshots/. The page is
// opened from the URL `forge ui` prints (its token in it) and keeps working through a
// reload. Also milestones: the session API lists them, and the timeline marks their two ends;
// and the search box: hits with their matches marked, one click to the checkpoint.
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConversationSession, openStore, ReasoningSession, type Store } from "../../src/index.js";
import { startUi, type RunningUi } from "../../src/ui/server.js";
import { launchChromium } from "../support/chromium.js";
import { makeTempDir, type TempDir } from "../support/temp.js";

const SHOTS = resolve(__dirname, "..", "..", "docs", "screenshots");

let dir: TempDir;
let store: Store;
let ui: RunningUi;
let browser: Browser;
let page: Page;
const problems: string[] = [];

beforeAll(async () => {
  dir = makeTempDir("ui-browser");
  store = await openStore(`sqlite:${dir.path}/forge.db`);

  const rs = await ReasoningSession.open(store, "debug-q4");
  const { result: h } = await rs.update((r) => r.hypotheses.add("the Q4_0 scales are read one block late", { confidence: 0.6 }));
  await rs.checkpoint("first hypothesis");
  await rs.update((r) => r.hypotheses.addEvidence(h.id, { kind: "supports", content: "block 7 matches when shifted by one" }));
  await rs.checkpoint("evidence for it", { tags: ["verified"] });

  const chat = await ConversationSession.open(store, "support-chat");
  await chat.append([
    { role: "system", content: "You are a careful assistant." },
    { role: "user", content: "What is the weather in Paris?" },
  ]);
  await chat.save("Question asked");
  await chat.append([
    { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }] },
    { role: "tool", tool_call_id: "call_1", content: '{"temp_c":18,"sky":"clear"}' },
    { role: "assistant", content: "It is 18 °C and clear in Paris." },
  ]);
  await chat.save("Weather answered", { description: "after the tool call" });
  await chat.append({ role: "user", content: "And tomorrow?" });
  await chat.save();
  // Back to #2 (branching: #3 stays on main) and on from there: a second branch.
  await chat.restore("Weather answered");
  await chat.append({ role: "user", content: "What about Lyon instead?" });
  await chat.save();

  ui = await startUi(store, { port: 0, pollMs: 200 });
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

const rows = () => page.locator(".timeline .row");

describe("the web page in Chromium", () => {
  it("lists the sessions and draws the conversation's timeline, newest first", async () => {
    await expect.poll(() => page.locator(".sessions .session-name").allTextContents()).toEqual(expect.arrayContaining(["support-chat", "debug-q4"]));
    await page.locator(".sessions button", { hasText: "support-chat" }).click();
    await expect.poll(() => rows().count()).toBe(4);
    expect(await page.locator(".timeline .row .message").allTextContents()).toEqual(["Checkpoint 4", "Checkpoint 3", "Weather answered", "Question asked"]);
    expect(await page.locator(".timeline svg circle").count()).toBe(4);
    expect(await page.locator(".row[data-seq='4'] .head-badge").count()).toBe(1);
    expect(await page.locator(".row[data-seq='4'] .badge.branch").textContent()).toBe("main-from-2");
    expect(await page.locator(".row[data-seq='3'] .badge.branch").textContent()).toBe("main");
    // Two lanes: #4 is drawn right of main, with a line down to its parent #2.
    const cx = await page.locator(".timeline svg circle").evaluateAll((els) => els.map((e) => Number(e.getAttribute("cx"))));
    expect(cx[0]).toBeGreaterThan(cx[1] ?? 0);
    expect(new Set(cx.slice(1)).size).toBe(1);
  });

  it("opens a checkpoint as a transcript with the tool call visible", async () => {
    await page.locator(".row[data-seq='2']").click();
    const transcript = page.locator(".opened .transcript");
    await expect.poll(() => transcript.locator(".msg").count()).toBe(5);
    expect(await transcript.locator(".msg").evaluateAll((els) => els.map((e) => e.getAttribute("data-role")))).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "assistant",
    ]);
    expect(await transcript.locator(".tool-call .tool-name").textContent()).toBe("get_weather");
    expect(await transcript.locator(".tool-call pre").textContent()).toContain('"city": "Paris"');
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: join(SHOTS, "timeline.png") });
  });

  it("compares two checkpoints: the messages the later one adds", async () => {
    await page.locator(".row[data-seq='1'] input[type=checkbox]").check();
    await page.locator(".row[data-seq='3'] input[type=checkbox]").check();
    await page.locator(".compare-btn").click();
    const compare = page.locator(".compare");
    await expect.poll(() => compare.locator("h2").textContent()).toBe("#1 → #3");
    expect(await compare.locator(".msg.added").count()).toBe(4);
    expect(await compare.locator(".msg.removed").count()).toBe(0);
    expect(await compare.locator(".summary").textContent()).toBe("2 messages in common, 4 added");
    await page.screenshot({ path: join(SHOTS, "compare.png") });
  });

  it("restores through the dialog, which says what a linear restore deletes, and the state changes", async () => {
    await page.locator(".row[data-seq='1']").click();
    await page.locator(".restore-btn").click();
    const dialog = page.locator("dialog.restore-dialog");
    await expect.poll(() => dialog.isVisible()).toBe(true);
    await expect.poll(() => dialog.locator(".plan").textContent()).toContain("Nothing is deleted");
    // Linear, from HEAD's branch: #4 goes; #2 and #3 stay, main stands on them.
    await dialog.locator(".linear input").check();
    await expect.poll(() => dialog.locator(".discarded").textContent()).toBe("#4 “Checkpoint 4”");
    await dialog.locator("button.primary").click();
    await expect.poll(() => rows().count()).toBe(3);
    await expect.poll(() => page.locator(".notice").textContent()).toContain("Restored #1; deleted #4");
    // The conversation holds #1's messages again.
    const current = page.locator(".working .transcript .msg");
    await expect.poll(() => current.count()).toBe(2);
    const cs = await ConversationSession.open(store, "support-chat");
    expect((await cs.messages()).map((m) => m.role)).toEqual(["system", "user"]);
  });

  it("appends a message and saves a checkpoint from the page", async () => {
    await page.locator(".append textarea").fill("Actually, what about Lyon?");
    await page.locator(".append button[type=submit]").click();
    await expect.poll(() => page.locator(".working .transcript .msg").count()).toBe(3);
    await page.locator(".save input[aria-label='checkpoint name']").fill("Asked about Lyon");
    await page.locator(".save button").click();
    await expect
      .poll(() => page.locator(".timeline .row .message").allTextContents())
      .toEqual(["Asked about Lyon", "Checkpoint 3", "Weather answered", "Question asked"]);
    const cs = await ConversationSession.open(store, "support-chat");
    const latest = await cs.latest();
    expect(latest?.checkpoint.name).toBe("Asked about Lyon");
    expect(latest?.messages.at(-1)).toMatchObject({ role: "user", content: "Actually, what about Lyon?" });
  });

  it("shows a checkpoint another process adds, without a reload", async () => {
    const other = await openStore(`sqlite:${dir.path}/forge.db`);
    const cs = await ConversationSession.open(other, "support-chat");
    await cs.append({ role: "assistant", content: "Lyon is 16 °C." });
    await cs.save("From another process");
    await other.close();
    await expect.poll(() => page.locator(".timeline .row .message").first().textContent(), { timeout: 10_000 }).toBe("From another process");
  });

  it("opened from the printed URL, drops the token from the address bar and keeps working through a reload", async () => {
    expect(ui.url).toMatch(/\?token=[\w-]{32}$/);
    expect(page.url()).not.toContain("token");
    await page.reload();
    await expect.poll(() => page.locator(".sessions .session-name").allTextContents()).toEqual(expect.arrayContaining(["support-chat", "debug-q4"]));
    expect(page.url()).not.toContain("token");
  });

  it("opened without the token, the page loads but its data does not", async () => {
    const other = await browser.newPage();
    const failed: number[] = [];
    other.on("response", (r) => {
      if (r.url().includes("/api/")) failed.push(r.status());
    });
    await other.goto(`http://127.0.0.1:${ui.port}/`);
    await expect.poll(() => failed.length).toBeGreaterThan(0);
    expect(new Set(failed)).toEqual(new Set([401]));
    expect(await other.locator(".sessions .session-name").count()).toBe(0);
    await other.close();
  });

  it("draws a reasoning session as its hypothesis board", async () => {
    await page.locator(".sessions button", { hasText: "debug-q4" }).click();
    await expect.poll(() => rows().count()).toBe(2);
    await page.locator(".row[data-seq='2']").click();
    const board = page.locator(".opened .board");
    await expect.poll(() => board.locator(".card p").textContent()).toBe("the Q4_0 scales are read one block late");
    expect(await board.locator(".evidence li").textContent()).toContain("block 7 matches when shifted by one");
  });

  it("searches history from the search box, marks the matches, and opens the checkpoint a hit names", async () => {
    await page.locator(".search-box input").fill("scales block late");
    await page.locator(".search-box select").selectOption("first");
    await page.locator(".search-box button").click();
    const hits = page.locator(".search-results .hit");
    await expect.poll(() => hits.count()).toBe(1);
    expect(await hits.first().locator(".hit-head").textContent()).toContain("debug-q4 #1");
    expect(await hits.first().locator(".where").textContent()).toBe("hypotheses[0].statement");
    expect(await hits.first().locator("mark").allTextContents()).toEqual(["scales", "block", "late"]);
    await page.screenshot({ path: join(SHOTS, "search.png") });
    await hits.first().click();
    await expect.poll(() => page.locator(".opened h2").textContent()).toContain("#1");
    expect(await page.locator(".opened .board .card p").textContent()).toBe("the Q4_0 scales are read one block late");
    await page.locator(".search-box input").fill("quokka marmalade");
    await page.locator(".search-box button").click();
    await expect.poll(() => page.locator(".search-results h2").textContent()).toBe("No matches for “quokka marmalade”");
    await page.locator(".search-results button.link").click();
    expect(await page.locator(".search-results").count()).toBe(0);
  });
});

describe("milestones on the web page", () => {
  // A store of its own whose session holds one milestone, #2..#3 of four checkpoints.
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

  it("the session API returns the session's milestones", async () => {
    const detail = (await (await fetch(`http://127.0.0.1:${ui.port}/api/sessions/notes`, { headers: { Authorization: `Bearer ${ui.token}` } })).json()) as {
      milestones: unknown[];
    };
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
