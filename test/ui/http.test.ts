// The web page's HTTP API over a real server on a real SQLite store: what it serves, and
// the safety rules — loopback by default, a token everywhere else, Host checked, POST only
// with JSON from the same origin, inputs validated (400), unknown things 404.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConversationSession, openStore, type Store } from "../../src/index.js";
import { startUi, type RunningUi } from "../../src/ui/server.js";
import { makeTempDir, type TempDir } from "../support/temp.js";

let dir: TempDir;
let store: Store;
let ui: RunningUi;
let base: string;

beforeAll(async () => {
  dir = makeTempDir("ui-http");
  store = await openStore(`sqlite:${dir.path}/forge.db`);
  const s = await store.session("notes");
  await s.checkpoint({ a: 1, list: [1, 2] }, { message: "one" });
  await s.checkpoint({ a: 2, list: [1, 2, 3] }, { message: "two", tags: ["keep"] });
  ui = await startUi(store, { port: 0, pollMs: 50 });
  base = `http://127.0.0.1:${ui.port}`;
});

afterAll(async () => {
  await ui?.close();
  await store?.close();
  dir?.remove();
});

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(base + path, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });

describe("forge ui: the API", () => {
  it("binds 127.0.0.1 and needs no token there", () => {
    expect(ui.host).toBe("127.0.0.1");
    expect(ui.token).toBeUndefined();
    expect(ui.url).toBe(`http://127.0.0.1:${ui.port}/`);
  });

  it("lists sessions and gives a session's timeline, newest first", async () => {
    const sessions = (await (await fetch(`${base}/api/sessions`)).json()) as { sessions: { name: string; checkpoints: number }[] };
    expect(sessions.sessions.map((s) => [s.name, s.checkpoints])).toEqual([["notes", 2]]);
    const detail = (await (await fetch(`${base}/api/sessions/notes`)).json()) as { checkpoints: { seq: number; tags: string[] }[]; head: { branch: string } };
    expect(detail.checkpoints.map((c) => c.seq)).toEqual([2, 1]);
    expect(detail.checkpoints[0]?.tags).toEqual(["keep"]);
    expect(detail.head.branch).toBe("main");
  });

  it("gives a checkpoint's state and a comparison of two by JSON path", async () => {
    const one = (await (await fetch(`${base}/api/sessions/notes/checkpoints/%231`)).json()) as { view: { kind: string; state: unknown } };
    expect(one.view).toEqual({ kind: "json", state: { a: 1, list: [1, 2] } });
    const cmp = (await (await fetch(`${base}/api/sessions/notes/compare?from=%231&to=%232`)).json()) as {
      kind: string;
      changes: { at: string; kind: string }[];
    };
    expect(cmp.kind).toBe("json");
    expect(cmp.changes.map((c) => [c.at, c.kind])).toEqual([
      ["a", "changed"],
      ["list[2]", "added"],
    ]);
  });

  it("serves the built page with a strict content security policy", async () => {
    const res = await fetch(`${base}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(await res.text()).toContain('<script type="module" src="/assets/app.js">');
    expect((await fetch(`${base}/assets/app.js`)).headers.get("content-type")).toMatch(/javascript/);
  });

  it("restore-plan says what a linear restore deletes, and a restore does it", async () => {
    const plan = (await (await fetch(`${base}/api/sessions/notes/restore-plan?ref=%231&linear=1`)).json()) as { discarded: { seq: number }[] };
    expect(plan.discarded.map((c) => c.seq)).toEqual([2]);
    const s = await store.getSession("notes");
    const extra = await s.checkpoint({ a: 3 }, { message: "three" });
    const res = await post("/api/sessions/notes/restore", { ref: "#2" });
    expect(res.status).toBe(200);
    expect((await s.head()).checkpoint?.seq).toBe(2);
    expect((await s.list()).map((c) => c.id)).toContain(extra.id); // branching: nothing deleted
  });

  it("sends a change event when another writer adds a checkpoint", async () => {
    const controller = new AbortController();
    const res = await fetch(`${base}/api/events`, { signal: controller.signal });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = "";
    const until = async (pattern: RegExp) => {
      while (!pattern.test(text)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`stream ended before ${pattern}: ${text}`);
        text += decoder.decode(value);
      }
    };
    await until(/event: hello/);
    const other = await openStore(`sqlite:${dir.path}/forge.db`);
    await (await other.session("notes")).checkpoint({ from: "another process" });
    await other.close();
    await until(/event: change/);
    controller.abort();
    expect(text).toMatch(/event: change\ndata: \S+/);
  });
});

describe("forge ui: safety rules", () => {
  it("unknown sessions and checkpoints are 404 with a message", async () => {
    const a = await fetch(`${base}/api/sessions/nope`);
    expect(a.status).toBe(404);
    expect(await a.json()).toMatchObject({ code: "SESSION_NOT_FOUND", error: 'no session named "nope"' });
    const b = await fetch(`${base}/api/sessions/notes/checkpoints/ZZZZZZZZ`);
    expect(b.status).toBe(404);
    expect(((await b.json()) as { code: string }).code).toBe("CHECKPOINT_NOT_FOUND");
    expect((await fetch(`${base}/etc/passwd`)).status).toBe(404);
    expect((await fetch(`${base}/assets/../../package.json`)).status).toBe(404);
  });

  it("malformed bodies and queries are 400 with a message that names the problem", async () => {
    const notJson = await post("/api/sessions/notes/restore", "{ref:");
    expect(notJson.status).toBe(400);
    expect(((await notJson.json()) as { error: string }).error).toBe("the body is not valid JSON");
    const badField = await post("/api/sessions/notes/restore", { ref: 7 });
    expect(badField.status).toBe(400);
    expect(((await badField.json()) as { error: string }).error).toMatch(/^invalid body: ref: /);
    const extraField = await post("/api/sessions/notes/restore", { ref: "#1", rm: "-rf" });
    expect(extraField.status).toBe(400);
    // "to" defaults to HEAD, as in `checkpoint diff` and the MCP tool; "from" has no default.
    const noQuery = await fetch(`${base}/api/sessions/notes/compare?to=%231`);
    expect(noQuery.status).toBe(400);
    expect(((await noQuery.json()) as { error: string }).error).toMatch(/^"from" is missing/);
  });

  it("a cross-origin POST is refused, and so is one that is not JSON", async () => {
    const s = await store.getSession("notes");
    const before = await s.head();
    const cross = await post("/api/sessions/notes/restore", { ref: "#1" }, { Origin: "http://evil.example" });
    expect(cross.status).toBe(403);
    expect(((await cross.json()) as { code: string }).code).toBe("CROSS_ORIGIN");
    const site = await post("/api/sessions/notes/restore", { ref: "#1" }, { "Sec-Fetch-Site": "cross-site" });
    expect(site.status).toBe(403);
    const form = await fetch(`${base}/api/sessions/notes/restore`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: "ref=%231",
    });
    expect(form.status).toBe(415);
    expect((await s.head()).checkpoint?.id).toBe(before.checkpoint?.id);
    const same = await post("/api/sessions/notes/restore", { ref: "#1" }, { Origin: base });
    expect(same.status).toBe(200);
  });

  it("a request for another Host name is refused (no DNS rebinding onto loopback)", async () => {
    const { request } = await import("node:http");
    const status = await new Promise<number>((resolve, reject) => {
      const req = request({ host: "127.0.0.1", port: ui.port, path: "/api/sessions", headers: { Host: "attacker.example:80" } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on("error", reject);
      req.end();
    });
    expect(status).toBe(403);
  });

  it("a non-loopback bind requires the token on every request", async () => {
    const open = await startUi(store, { host: "0.0.0.0", port: 0 });
    try {
      expect(open.token).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect(open.url).toBe(`http://0.0.0.0:${open.port}/?token=${open.token}`);
      const url = `http://127.0.0.1:${open.port}`;
      const none = await fetch(`${url}/api/sessions`);
      expect(none.status).toBe(401);
      expect(((await none.json()) as { code: string }).code).toBe("UNAUTHORIZED");
      expect((await fetch(`${url}/`)).status).toBe(401);
      expect((await fetch(`${url}/api/sessions`, { headers: { Authorization: "Bearer wrong-token-wrong-token" } })).status).toBe(401);
      expect((await fetch(`${url}/api/sessions`, { headers: { Authorization: `Bearer ${open.token}` } })).status).toBe(200);
      expect((await fetch(`${url}/?token=${open.token}`)).status).toBe(200);
    } finally {
      await open.close();
    }
  });
});

describe("forge ui: a conversation's writes (the chat operations)", () => {
  const errorOf = async (res: Response) => [res.status, ((await res.json()) as { error: string }).error] as const;

  it("appends a message, or a list, and answers what `chat append --json` prints", async () => {
    await ConversationSession.create(store, "talk");
    const one = await post("/api/sessions/talk/messages", { message: { role: "user", content: "hi" } });
    expect(one.status).toBe(200);
    expect(await one.json()).toEqual({ session: "talk", appended: [{ role: "user", content: "hi" }], count: 1 });
    const openai = { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }] };
    const list = await post("/api/sessions/talk/messages", { message: [openai, { role: "tool", content: "ok", tool_call_id: "c1" }] });
    expect(((await list.json()) as { count: number }).count).toBe(3);
    expect((await (await ConversationSession.open(store, "talk")).messages()).map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
  });

  it('saves a checkpoint named "Checkpoint N" unless named, answering what `chat save --json` prints', async () => {
    const first = (await (await post("/api/sessions/talk/save", {})).json()) as {
      checkpoint: { seq: number; name: string; messageCount: number; session: string };
    };
    expect([first.checkpoint.session, first.checkpoint.seq, first.checkpoint.name, first.checkpoint.messageCount]).toEqual(["talk", 1, "Checkpoint 1", 3]);
    const named = (await (await post("/api/sessions/talk/save", { name: "done", description: "it worked", tags: ["ok"] })).json()) as {
      checkpoint: { name: string; description: string; tags: string[]; message: string };
    };
    expect(named.checkpoint).toMatchObject({ name: "done", description: "it worked", tags: ["ok"], message: "done" });
  });

  it("refuses bodies the operations' schemas refuse, and bad messages, with 400 and writing nothing", async () => {
    const before = await (await ConversationSession.open(store, "talk")).messages();
    expect(await errorOf(await post("/api/sessions/talk/messages", {}))).toEqual([400, '"message" is missing: Invalid input']);
    expect(await errorOf(await post("/api/sessions/talk/messages", { message: "hi" }))).toEqual([400, expect.stringMatching(/^invalid message: /)]);
    expect(await errorOf(await post("/api/sessions/talk/messages", { message: { role: "user", content: "x" }, rm: "-rf" }))).toEqual([
      400,
      expect.stringMatching(/rm/),
    ]);
    expect(await errorOf(await post("/api/sessions/talk/messages", { message: { role: "user", content: "x" }, session: "other" }))).toEqual([
      400,
      'invalid body: "session" is named by the URL',
    ]);
    expect(await errorOf(await post("/api/sessions/talk/messages", [{ role: "user", content: "x" }]))).toEqual([400, "invalid body: expected a JSON object"]);
    expect(await errorOf(await post("/api/sessions/talk/save", "{name:"))).toEqual([400, "the body is not valid JSON"]);
    expect(await errorOf(await post("/api/sessions/talk/save", { name: "x".repeat(201) }))).toEqual([400, expect.stringMatching(/^invalid name: /)]);
    const robot = await post("/api/sessions/talk/messages", {
      message: [
        { role: "user", content: "ok" },
        { role: "robot", content: "beep" },
      ],
    });
    expect(robot.status).toBe(400);
    expect(await robot.json()).toMatchObject({ code: "INVALID_ARGUMENT", error: expect.stringMatching(/^message 1: role "robot" is not one of/) });
    expect(await (await ConversationSession.open(store, "talk")).messages()).toEqual(before);
  });

  it("refuses a session that holds something else than a conversation", async () => {
    const s = await store.getSession("notes");
    const count = (await s.list()).length;
    const res = await post("/api/sessions/notes/messages", { message: { role: "user", content: "hi" } });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: "INVALID_ARGUMENT", error: 'session "notes" holds a state that is not a conversation' });
    expect((await post("/api/sessions/notes/save", {})).status).toBe(400);
    expect((await s.list()).length).toBe(count);
  });
});
