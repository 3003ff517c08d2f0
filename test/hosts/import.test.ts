// `forge agent import` as a user runs it, over a fake home holding transcripts of Claude Code,
// Codex, Gemini CLI and Copilot CLI for this project (one from a folder inside it, one Claude
// Code session still being written, one Claude Code sub-agent) and for a sibling project whose
// folder name starts with this one's, which must not be imported.
import { randomUUID } from "node:crypto";
import { appendFileSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, ok } from "../support/cli.js";
import { makeTempDir, type TempDir } from "../support/temp.js";
import { FakeHome, forgeIn, type ImportJson, type ListJson, type ShowJson, turn } from "./import-support.js";

describe("forge agent import over a fake home of four hosts", () => {
  let tmp: TempDir;
  let fake: FakeHome;
  let project: string;
  const id = { ccA: randomUUID(), ccB: randomUUID(), ccSub: randomUUID(), cx: randomUUID(), gm: randomUUID(), cp: randomUUID() };
  const other = { cc: randomUUID(), cx: randomUUID(), gm: randomUUID(), cp: randomUUID() };
  let tailB = "";
  let first: ImportJson;
  const run = (args: readonly string[]) => forgeIn(project, fake.home, args);

  beforeAll(() => {
    tmp = makeTempDir("agent-import");
    fake = new FakeHome(join(tmp.path, "home"));
    project = join(tmp.path, "work", "shop-api");
    const sibling = join(tmp.path, "work", "shop-api-legacy");
    for (const d of [project, sibling, join(project, "src")]) mkdirSync(d, { recursive: true });
    ok(run(["init"]));
    fake.claude(id.ccA, project, [turn("A1 add a health check"), turn("A2 document it")]);
    fake.claude(id.ccSub, join(project, "src"), [turn("SUB1 from a folder inside the project")]);
    fake.claudeSubagent(id.ccA, "a1b2c3d4e5f6", project, turn("AGENT1 find the routes"));
    // Session B: one whole turn, then a prompt line Claude Code is still writing.
    const b = fake.claudePath(id.ccB, project);
    fake.claude(id.ccB, project, [turn("B1 list the routes")]);
    const cut = JSON.stringify({
      type: "user",
      isSidechain: false,
      cwd: project,
      sessionId: id.ccB,
      uuid: randomUUID(),
      timestamp: fake.ts(),
      message: { role: "user", content: "B2 count them" },
    });
    appendFileSync(b, cut.slice(0, 60));
    tailB = `${cut.slice(60)}\n`;
    fake.codex(id.cx, project, [turn("X1 fix the failing test"), turn("X2 commit the fix")]);
    fake.gemini(id.gm, project, "shop-api", [turn("G1 explain the router"), turn("G2 add a 404 handler")]);
    fake.copilot(id.cp, project, [turn("P1 add request logging"), turn("P2 make it configurable")]);
    fake.claude(other.cc, sibling, [turn("OTHER-CC rename the legacy module")]);
    fake.codex(other.cx, sibling, [turn("OTHER-CX bump the deps")]);
    fake.gemini(other.gm, sibling, "shop-api-legacy", [turn("OTHER-GM port it")]);
    fake.copilot(other.cp, sibling, [turn("OTHER-CP delete dead code")]);
    first = json<ImportJson>(run(["agent", "import", "--json"]));
  });
  afterAll(() => tmp.remove());

  const list = () => json<ListJson>(run(["agent", "list", "--json"])).sessions;
  const show = (sid: string) => json<ShowJson>(run(["agent", "show", sid, "--json"]));

  it("imports this project's sessions of every host, a folder inside it included, and none of the sibling project's", () => {
    expect(first.sessions.map((s) => s.status)).toEqual(first.sessions.map(() => "new"));
    const listed = list();
    const ids = listed.map((s) => `${s.host} ${s.sessionId}`).sort();
    const want = [
      `claude-code ${id.ccA}`,
      `claude-code ${id.ccB}`,
      `claude-code ${id.ccSub}`,
      "claude-code agent-a1b2c3d4e5f6",
      `codex ${id.cx}`,
      `gemini-cli ${id.gm}`,
      `copilot ${id.cp}`,
    ];
    expect(ids).toEqual(want.sort());
    const everything = JSON.stringify(listed) + listed.map((s) => JSON.stringify(show(s.session))).join("");
    for (const sid of Object.values(other)) expect(everything).not.toContain(sid);
    expect(everything).not.toContain("OTHER-");
    expect(listed.every((s) => s.imported?.format !== undefined && s.imported.version === 1)).toBe(true);
  });

  it("makes each session a timeline of its prompts at their real times, with thinking, tool calls and results, and says the files are not known", () => {
    const a = show(id.ccA);
    expect(a.turns.map((t) => t.text)).toEqual(["A1 add a health check", "A2 document it"]);
    expect(a.imported?.note).toMatch(/files were not recorded/);
    const records = readFileSync(fake.claudePath(id.ccA, project), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; timestamp: string; message?: { content: unknown } });
    const prompts = records.filter((r) => r.type === "user" && typeof r.message?.content === "string");
    expect(a.turns.map((t) => t.checkpoint.createdAt)).toEqual(prompts.map((r) => r.timestamp));
    for (const t of a.turns) {
      expect(t.imported).toBe(true);
      expect(t.checkpoint.filesRoot).toBeNull();
      expect(t.checkpoint.metadata["filesKnown"]).toBe(false);
      expect(t.messages[0]).toMatchObject({ role: "user", content: t.text });
      expect(JSON.stringify(t.messages)).toContain('"type":"thinking"');
      expect(t.messages.some((m) => m.toolCalls?.some((c) => c.name === "Bash"))).toBe(true);
      expect(t.messages.some((m) => m.role === "tool" && m.content === "ok\n")).toBe(true);
    }
    // Codex writes each prompt twice (response_item and event_msg): two prompts, not four.
    const x = show(id.cx);
    expect(x.turns.map((t) => t.text)).toEqual(["X1 fix the failing test", "X2 commit the fix"]);
    expect(show(id.gm).turns.map((t) => t.text)).toEqual(["G1 explain the router", "G2 add a 404 handler"]);
    expect(show(id.cp).turns.map((t) => t.text)).toEqual(["P1 add request logging", "P2 make it configurable"]);
  });

  it("imports a Claude Code sub-agent as a session of its own that names the session which started it", () => {
    const entry = list().find((s) => s.sessionId === "agent-a1b2c3d4e5f6");
    expect(entry?.parent).toBe(id.ccA);
    const sub = show("agent-a1b2c3d4e5f6");
    const messages = sub.turns.flatMap((t) => t.messages);
    expect(messages.some((m) => m.role === "assistant" && m.toolCalls?.some((c) => c.name === "Bash"))).toBe(true);
    expect(sub.turns[0]?.text).toBe("AGENT1 find the routes");
  });

  it("adds nothing the second time", () => {
    const before = list().map((s) => [s.session, s.prompts, ok(run(["checkpoint", "list", "--session", s.session, "--json"]))]);
    const again = json<ImportJson>(run(["agent", "import", "--json"]));
    expect(again.sessions.map((s) => s.status)).toEqual(again.sessions.map(() => "unchanged"));
    expect(again.imported).toEqual({ new: 0, added: 0, entries: 0, prompts: 0 });
    const after = list().map((s) => [s.session, s.prompts, ok(run(["checkpoint", "list", "--session", s.session, "--json"]))]);
    expect(after).toEqual(before);
  });

  it("leaves a half-written last line for later and takes it once it is whole", () => {
    expect(show(id.ccB).turns.map((t) => t.text)).toEqual(["B1 list the routes"]);
    appendFileSync(fake.claudePath(id.ccB, project), tailB);
    const r = json<ImportJson>(run(["agent", "import", "--json"]));
    expect(r.sessions.find((s) => s.sessionId === id.ccB)).toMatchObject({ status: "added", added: 1, prompts: 1 });
    const b = show(id.ccB);
    expect(b.turns.map((t) => t.text)).toEqual(["B1 list the routes", "B2 count them"]);
    expect(JSON.stringify(b).split("B1 list the routes").length).toBe(JSON.stringify(show(id.ccA)).split("A1 add a health check").length);
  });

  it("prints what it did for people, and that nothing is new the next time", () => {
    const out = ok(run(["agent", "import"]));
    expect(out).toMatch(/nothing new: 7 sessions already imported/);
    const listed = ok(run(["agent", "list"]));
    expect(listed).toContain("(imported)");
    expect(ok(run(["agent", "show", id.cx]))).toMatch(/imported, files not known/);
  });
});

describe("forge agent import: compressed rollouts, rewinds, filters and bad input", () => {
  let tmp: TempDir;
  let fake: FakeHome;
  let project: string;
  const run = (args: readonly string[]) => forgeIn(project, fake.home, args);

  beforeAll(() => {
    tmp = makeTempDir("agent-import-b");
    fake = new FakeHome(join(tmp.path, "home"));
    project = join(tmp.path, "proj");
    mkdirSync(project, { recursive: true });
    ok(run(["init"]));
  });
  afterAll(() => tmp.remove());

  it("reads a Codex rollout compressed as .jsonl.zst, and one still being compressed up to where it is whole", () => {
    const [whole, cut] = [randomUUID(), randomUUID()];
    fake.codex(whole, project, [turn("Z1 first"), turn("Z2 second")], { zst: true });
    const path = fake.codex(cut, project, [turn("C1 first"), turn("C2 second")], { zst: true, blockSize: 1024 });
    const packed = readFileSync(path);
    writeFileSync(path, packed.subarray(0, 13 + 2 * (3 + 1024) + 300)); // two blocks and part of a third
    const r = json<ImportJson>(run(["agent", "import", "--host", "codex", "--json"]));
    expect(r.sessions.find((s) => s.sessionId === whole)).toMatchObject({ status: "new", prompts: 2 });
    expect(json<ShowJson>(run(["agent", "show", whole, "--json"])).turns.map((t) => t.text)).toEqual(["Z1 first", "Z2 second"]);
    expect(r.sessions.find((s) => s.sessionId === cut)?.status).toBe("new");
    const early = json<ShowJson>(run(["agent", "show", cut, "--json"])).turns.map((t) => t.text);
    expect(["C1 first", "C2 second"].slice(0, early.length)).toEqual(early);
    expect(early.length).toBeLessThan(2);
    // The rest of the file arrives: the part read before is not read again.
    writeFileSync(path, packed);
    const again = json<ImportJson>(run(["agent", "import", "--host", "codex", "--json"]));
    expect(again.sessions.find((s) => s.sessionId === cut)).toMatchObject({ status: "added", prompts: 2 - early.length });
    const c = json<ShowJson>(run(["agent", "show", cut, "--json"]));
    expect(c.turns.map((t) => t.text)).toEqual(["C1 first", "C2 second"]);
    expect(JSON.stringify(c).split('"content":"C1 first"').length).toBe(2);
  });

  it("applies Gemini CLI's $rewindTo: the prompt taken back and what followed it are not imported", () => {
    const sid = randomUUID();
    fake.gemini(sid, project, "proj", [turn("R1 keep this"), turn("R2 and this")], turn("REWOUND drop the database"));
    json<ImportJson>(run(["agent", "import", "--host", "gemini-cli", "--json"]));
    const s = json<ShowJson>(run(["agent", "show", sid, "--json"]));
    expect(s.turns.map((t) => [t.prompt, t.text])).toEqual([
      [1, "R1 keep this"],
      [2, "R2 and this"],
    ]);
    const messages = JSON.stringify(s.turns.flatMap((t) => t.messages));
    expect(messages).not.toContain("REWOUND");
    expect(messages).toContain("$rewindTo");
  });

  it("--host takes only the hosts named, --since and --all choose the window", () => {
    const old = randomUUID();
    const recent = randomUUID();
    const path = fake.claude(old, project, [turn("OLD from two months ago")]);
    fake.copilot(recent, project, [turn("RECENT copilot work")]);
    const when = new Date(Date.now() - 60 * 86_400_000);
    utimesSync(path, when, when); // last written two months ago
    const onlyCodex = json<ImportJson>(run(["agent", "import", "--host", "codex", "--json"]));
    expect(onlyCodex.hosts.map((h) => h.host)).toEqual(["codex"]);
    expect(onlyCodex.sessions.some((s) => s.sessionId === recent)).toBe(false);
    const byDefault = json<ImportJson>(run(["agent", "import", "--json"]));
    expect(byDefault.sessions.find((s) => s.sessionId === recent)?.status).toBe("new");
    expect(byDefault.sessions.some((s) => s.sessionId === old)).toBe(false);
    const wider = json<ImportJson>(run(["agent", "import", "--since", "90 days ago", "--host", "claude-code", "--json"]));
    expect(wider.sessions.find((s) => s.sessionId === old)?.status).toBe("new");
    expect(json<ImportJson>(run(["agent", "import", "--all", "--json"])).since).toBeNull();
  });

  it("takes Cursor's transcripts from the project root's folder only, not a sibling's that starts with its name", () => {
    const transcript = readFileSync(fileURLToPath(new URL("./fixtures/cursor/transcript.jsonl", import.meta.url)));
    const slug = project.split("/").filter(Boolean).join("-");
    const [mine, theirs] = [randomUUID(), randomUUID()];
    for (const [folder, sid] of [
      [slug, mine],
      [`${slug}-legacy`, theirs],
    ] as const) {
      const dir = join(fake.home, ".cursor", "projects", folder, "agent-transcripts", sid);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `${sid}.jsonl`), transcript);
    }
    const r = json<ImportJson>(run(["agent", "import", "--host", "cursor", "--json"]));
    expect(r.sessions.map((s) => [s.host, s.sessionId, s.status])).toEqual([["cursor", mine, "new"]]);
    const s = json<ShowJson>(run(["agent", "show", mine, "--json"]));
    expect(s.turns[0]?.text).toContain("Fix the bug in main.ts");
  });

  it("refuses a host it cannot import, a time in the future, and --since with --all, naming them", () => {
    const bad = run(["agent", "import", "--host", "windsurf"]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/no transcript importer for "windsurf"/);
    const future = run(["agent", "import", "--since", "tomorrow"]);
    expect(future.code).not.toBe(0);
    expect(future.stderr).toMatch(/tomorrow/);
    const both = run(["agent", "import", "--since", "2 days ago", "--all"]);
    expect(both.code).not.toBe(0);
    expect(both.stderr).toMatch(/--since or --all/);
  });
});
