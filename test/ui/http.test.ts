// The web page's HTTP API over a real server on a real SQLite store: what it serves, and
// the safety rules — loopback by default, a token on every bind (all but the page's own
// files need it), Host checked, POST only with JSON, the token and the server's own Origin,
// inputs validated (400), unknown things 404.
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

/** What the page sends with every call: its token, and (for a POST) its origin, as a browser does. */
const auth = () => ({ Authorization: `Bearer ${ui.token}` });
const get = (path: string, init: RequestInit = {}) => fetch(base + path, { ...init, headers: { ...auth(), ...(init.headers as Record<string, string>) } });
const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(base + path, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: base, ...auth(), ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
/** A request with a Host header of our choosing (fetch will not send one). */
const rawStatus = async (options: { method?: string; path: string; headers: Record<string, string>; body?: string }): Promise<number> => {
  const { request } = await import("node:http");
  return new Promise<number>((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port: ui.port, method: options.method ?? "GET", path: options.path, headers: options.headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", reject);
    req.end(options.body);
  });
};

describe("forge ui: the API", () => {
  it("binds 127.0.0.1 and mints a token there too, printed in its URL", () => {
    expect(ui.host).toBe("127.0.0.1");
    expect(ui.token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(ui.url).toBe(`http://127.0.0.1:${ui.port}/?token=${ui.token}`);
  });

  it("lists sessions and gives a session's timeline, newest first", async () => {
    const sessions = (await (await get(`/api/sessions`)).json()) as { sessions: { name: string; checkpoints: number }[] };
    expect(sessions.sessions.map((s) => [s.name, s.checkpoints])).toEqual([["notes", 2]]);
    const detail = (await (await get(`/api/sessions/notes`)).json()) as { checkpoints: { seq: number; tags: string[] }[]; head: { branch: string } };
    expect(detail.checkpoints.map((c) => c.seq)).toEqual([2, 1]);
    expect(detail.checkpoints[0]?.tags).toEqual(["keep"]);
    expect(detail.head.branch).toBe("main");
  });

  it("searches every checkpoint: the search operation's result, with --first's order; bad parameters are 400", async () => {
    type Hit = { checkpoint: { seq: number; session: string }; kind: string; where: string };
    const r = (await (await get("/api/search?q=two")).json()) as { query: string; results: Hit[] };
    expect(r.query).toBe("two");
    expect(r.results.map((h) => [h.checkpoint.session, h.checkpoint.seq, h.kind, h.where])).toEqual([["notes", 2, "messages", "message"]]);
    const first = (await (await get("/api/search?q=one%20OR&order=first")).json()) as { results: Hit[] };
    expect(first.results).toEqual([]);
    for (const bad of ["/api/search", "/api/search?q=two&order=sideways", "/api/search?q=two&limit=0", "/api/search?q=two&limit=x", "/api/search?q=%22%22"]) {
      expect((await get(bad)).status, bad).toBe(400);
    }
    expect((await fetch(`${base}/api/search?q=two`)).status).toBe(401);
  });

  it("gives a checkpoint's state and a comparison of two by JSON path", async () => {
    const one = (await (await get(`/api/sessions/notes/checkpoints/%231`)).json()) as { view: { kind: string; state: unknown } };
    expect(one.view).toEqual({ kind: "json", state: { a: 1, list: [1, 2] } });
    const cmp = (await (await get(`/api/sessions/notes/compare?from=%231&to=%232`)).json()) as {
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
    const plan = (await (await get(`/api/sessions/notes/restore-plan?ref=%231&linear=1`)).json()) as { discarded: { seq: number }[] };
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
    const res = await fetch(`${base}/api/events?token=${ui.token}`, { signal: controller.signal });
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
    const a = await get(`/api/sessions/nope`);
    expect(a.status).toBe(404);
    expect(await a.json()).toMatchObject({ code: "SESSION_NOT_FOUND", error: 'no session named "nope"' });
    const b = await get(`/api/sessions/notes/checkpoints/ZZZZZZZZ`);
    expect(b.status).toBe(404);
    expect(((await b.json()) as { code: string }).code).toBe("CHECKPOINT_NOT_FOUND");
    expect((await get(`/etc/passwd`)).status).toBe(404);
    expect((await get(`/assets/../../package.json`)).status).toBe(404);
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
    const noQuery = await get(`/api/sessions/notes/compare?to=%231`);
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
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: base, ...auth() },
      body: "ref=%231",
    });
    expect(form.status).toBe(415);
    expect((await s.head()).checkpoint?.id).toBe(before.checkpoint?.id);
    const same = await post("/api/sessions/notes/restore", { ref: "#1" }, { Origin: base });
    expect(same.status).toBe(200);
  });

  it("a POST with no Origin header is refused with 403, token or not, and changes nothing", async () => {
    const s = await store.getSession("notes");
    const before = await s.head();
    const headers = { Host: `127.0.0.1:${ui.port}`, "Content-Type": "application/json" };
    const body = JSON.stringify({ ref: "#1" });
    expect(await rawStatus({ method: "POST", path: "/api/sessions/notes/restore", headers: { ...headers, ...auth() }, body })).toBe(403);
    // Node's fetch sends no Origin, like curl or any script.
    const res = await fetch(`${base}/api/sessions/notes/restore`, { method: "POST", headers: { "Content-Type": "application/json", ...auth() }, body });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { code: string }).code).toBe("CROSS_ORIGIN");
    // Without the token it is refused before its origin is looked at.
    expect(await rawStatus({ method: "POST", path: "/api/sessions/notes/restore", headers, body })).toBe(401);
    expect((await s.head()).checkpoint?.id).toBe(before.checkpoint?.id);
  });

  it("a POST without the token is refused with 401 though it comes from the page's origin, and so is one with the token only in its query", async () => {
    const s = await store.getSession("notes");
    const before = await s.head();
    const none = await fetch(`${base}/api/sessions/notes/restore`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: base },
      body: '{"ref":"#1"}',
    });
    expect(none.status).toBe(401);
    expect(((await none.json()) as { code: string }).code).toBe("UNAUTHORIZED");
    const wrong = await post("/api/sessions/notes/restore", { ref: "#1" }, { Authorization: "Bearer wrong-token-wrong-token-wrong-tok" });
    expect(wrong.status).toBe(401);
    const query = await fetch(`${base}/api/sessions/notes/restore?token=${ui.token}`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: base },
      body: '{"ref":"#1"}',
    });
    expect(query.status).toBe(401);
    expect((await s.head()).checkpoint?.id).toBe(before.checkpoint?.id);
  });

  it("on loopback too, the API needs the token while the page's own files do not", async () => {
    for (const path of ["/api/sessions", "/api/sessions/notes", "/api/sessions/notes/checkpoints/%231", "/api/events"]) {
      const res = await fetch(base + path);
      expect(res.status, path).toBe(401);
      expect(((await res.json()) as { code: string }).code, path).toBe("UNAUTHORIZED");
    }
    // The package's own bytes, nothing from the store: a browser loads them without the header, and on a reload without ?token=.
    for (const path of ["/", "/assets/app.js", "/assets/app.css"]) expect((await fetch(base + path)).status, path).toBe(200);
    expect((await fetch(`${base}/api/sessions?token=${ui.token}`)).status).toBe(200);
  });

  it("a request for another Host name is refused (no DNS rebinding onto loopback), even with the token", async () => {
    expect(await rawStatus({ path: "/api/sessions", headers: { Host: "attacker.example:80", ...auth() } })).toBe(403);
    expect(await rawStatus({ path: "/", headers: { Host: `attacker.example:${ui.port}` } })).toBe(403);
    const body = JSON.stringify({ ref: "#1" });
    const headers = { Host: `evil.example:${ui.port}`, Origin: `http://evil.example:${ui.port}`, "Content-Type": "application/json", ...auth() };
    expect(await rawStatus({ method: "POST", path: "/api/sessions/notes/restore", headers, body })).toBe(403);
    expect(await rawStatus({ path: "/api/sessions", headers: { Host: `localhost:${ui.port}`, ...auth() } })).toBe(200);
  });

  it("a non-loopback bind answers any Host name and requires the token on every API request", async () => {
    const open = await startUi(store, { host: "0.0.0.0", port: 0 });
    try {
      expect(open.token).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect(open.url).toBe(`http://0.0.0.0:${open.port}/?token=${open.token}`);
      const url = `http://127.0.0.1:${open.port}`;
      const none = await fetch(`${url}/api/sessions`);
      expect(none.status).toBe(401);
      expect(((await none.json()) as { code: string }).code).toBe("UNAUTHORIZED");
      expect((await fetch(`${url}/api/sessions`, { headers: { Authorization: "Bearer wrong-token-wrong-token" } })).status).toBe(401);
      expect((await fetch(`${url}/api/sessions`, { headers: { Authorization: `Bearer ${open.token}` } })).status).toBe(200);
      expect((await fetch(`${url}/?token=${open.token}`)).status).toBe(200);
      expect((await fetch(`${url}/`)).status).toBe(200); // the page itself: see the loopback test
    } finally {
      await open.close();
    }
  });

  it("takes a given token, and refuses one shorter than 16 characters", async () => {
    const given = await startUi(store, { port: 0, token: "a-token-of-my-own-choosing" });
    try {
      expect(given.url).toBe(`http://127.0.0.1:${given.port}/?token=a-token-of-my-own-choosing`);
      const url = `http://127.0.0.1:${given.port}`;
      expect((await fetch(`${url}/api/sessions`, { headers: { Authorization: "Bearer a-token-of-my-own-choosing" } })).status).toBe(200);
    } finally {
      await given.close();
    }
    await expect(startUi(store, { port: 0, token: "short" })).rejects.toThrow(/at least 16 characters/);
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
