// `forge ui`'s HTTP side (Hono): a JSON API over the library, the built page, and the
// safety rules. Every request passes `guard` first:
//  - the Host header must name this server (no DNS rebinding into a loopback server);
//  - everything but the page's own three files needs the token (Authorization: Bearer, or
//    ?token= on a GET for EventSource, which cannot set headers), on loopback too: any local
//    process can reach a loopback port;
//  - state-changing calls are POST with a JSON body and an Origin header naming this server
//    (a request without one, or from another origin, is refused).
// Inputs are checked with zod schemas; session names and refs go to the library (which
// validates them again) and never to the file system; static files come from a fixed list.
import { timingSafeEqual } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Hono, type Context } from "hono";
import { streamSSE } from "hono/streaming";
import { z } from "zod";
import { ForgeError } from "../core/errors.js";
import { agentImportOperation } from "../operations/agent/import.js";
import { agentListOperation } from "../operations/agent/sessions.js";
import { blameOperation } from "../operations/blame/blame.js";
import { chatSaveOperation } from "../operations/chat/checkpoints.js";
import { chatAppendOperation } from "../operations/chat/messages.js";
import { compareOperation } from "../operations/checkpoint/compare.js";
import { restoreOperation, restorePlanOperation } from "../operations/checkpoint/restore.js";
import { checkpointViewOperation, sessionShowOperation } from "../operations/checkpoint/view.js";
import { OperationContext } from "../operations/context.js";
import type { InputOf, Operation, Shape } from "../operations/operation.js";
import { searchOperation } from "../operations/search/search.js";
import { sessionListOperation } from "../operations/store/store.js";
import type { Store } from "../timeline/store.js";
import { jsonText } from "../core/json-text.js";

export interface AppOptions {
  /** Required on every request but those for the page's own files. */
  readonly token: string;
  /** Host header values this server answers to, e.g. "127.0.0.1:4500"; "*" for any (a token-guarded bind). */
  readonly allowedHosts: readonly string[];
  /** How often the event stream looks for new checkpoints (default 1000 ms). */
  readonly pollMs?: number;
  /** The project whose files the page blames (default: the folder holding .forge above the current one). Never taken from a request. */
  readonly root?: string;
}

/** The built page, served from a fixed list (nothing from a request reaches the file system). */
const ASSETS: Record<string, { file: string; type: string }> = {
  "/": { file: "index.html", type: "text/html; charset=utf-8" },
  "/assets/app.js": { file: "app.js", type: "text/javascript; charset=utf-8" },
  "/assets/app.css": { file: "app.css", type: "text/css; charset=utf-8" },
};
/** dist/ui/page next to the compiled server; from the TypeScript sources (tests), the build's copy. */
const PAGE_DIRS = [new URL("./page/", import.meta.url), new URL("../../dist/ui/page/", import.meta.url)];
const pageDir = (): URL => PAGE_DIRS.find((d) => existsSync(fileURLToPath(new URL("app.js", d)))) ?? (PAGE_DIRS[0] as URL);

const ref = z.string().min(1).max(200);
const restoreBody = z.object({ ref, linear: z.boolean().default(false) }).strict();

export function createApp(store: Store, options: AppOptions): Hono {
  const app = new Hono();
  const assets = new Map<string, Buffer>();

  app.onError((e, c) => errorResponse(c, e));
  app.notFound((c) => c.json({ error: "not found", code: "NOT_FOUND" }, 404));

  app.use("*", async (c, next) => {
    const refusal = guard(c, options);
    if (refusal) return c.json({ error: refusal.message, code: refusal.code }, refusal.status);
    await next();
    c.header("X-Content-Type-Options", "nosniff");
    c.header("Referrer-Policy", "no-referrer");
    c.header("Cache-Control", "no-store");
  });

  for (const [path, asset] of Object.entries(ASSETS)) {
    app.get(path, (c) => {
      let body = assets.get(asset.file);
      if (!body) {
        try {
          body = readFileSync(fileURLToPath(new URL(asset.file, pageDir())));
        } catch {
          return c.text("the page is not built: run `npm run build`", 500);
        }
        assets.set(asset.file, body);
      }
      c.header("Content-Type", asset.type);
      c.header(
        "Content-Security-Policy",
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'",
      );
      return c.body(new Uint8Array(body));
    });
  }

  // Every route is an operation over this server's store, its input parsed with the
  // operation's own schema: the page gets the shape --json and the MCP tools give.
  const ctx = new OperationContext({ store, ...(options.root !== undefined && { root: options.root }) });
  const call = <S extends Shape, R>(op: Operation<S, R>, raw: Record<string, unknown>): Promise<R> => op.run(ctx, parseInput(op, raw));

  app.get("/api/sessions", async (c) => sendJson(c, await call(sessionListOperation, {})));

  // Full-text search of every checkpoint: ?q=…&order=first|last&session=&kind=&since=&until=&limit=
  app.get("/api/search", async (c) => {
    const order = c.req.query("order");
    if (order !== undefined && order !== "first" && order !== "last" && order !== "relevance") throw new BadRequest("invalid order: relevance, first or last");
    const limit = c.req.query("limit");
    return sendJson(
      c,
      await call(searchOperation, {
        query: c.req.query("q"),
        first: order === "first",
        last: order === "last",
        session: c.req.query("session"),
        kind: c.req.query("kind"),
        since: c.req.query("since"),
        until: c.req.query("until"),
        limit: limit === undefined ? undefined : /^\d+$/.test(limit) ? Number(limit) : limit,
      }),
    );
  });

  // Which prompt wrote each line of a project file: ?path=…&at=…&start=&end= (the project is this server's, never the request's).
  app.get("/api/blame", async (c) => {
    const line = (v: string | undefined) => (v !== undefined && /^\d+$/.test(v) ? Number(v) : v);
    return sendJson(
      c,
      await call(blameOperation, { path: c.req.query("path"), at: c.req.query("at"), start: line(c.req.query("start")), end: line(c.req.query("end")) }),
    );
  });

  app.get("/api/sessions/:name", async (c) => sendJson(c, await call(sessionShowOperation, { session: c.req.param("name") })));

  app.get("/api/sessions/:name/checkpoints/:ref", async (c) =>
    sendJson(c, await call(checkpointViewOperation, { session: c.req.param("name"), ref: c.req.param("ref") })),
  );

  app.get("/api/sessions/:name/compare", async (c) =>
    sendJson(c, await call(compareOperation, { session: c.req.param("name"), from: c.req.query("from"), to: c.req.query("to"), patches: true })),
  );

  app.get("/api/sessions/:name/restore-plan", async (c) => {
    const linear = c.req.query("linear") === "1" || c.req.query("linear") === "true";
    return sendJson(c, await call(restorePlanOperation, { session: c.req.param("name"), ref: c.req.query("ref"), discardFuture: linear }));
  });

  app.post("/api/sessions/:name/restore", async (c) => {
    const body = await jsonBody(c, restoreBody);
    const session = c.req.param("name");
    const plan = await call(restorePlanOperation, { session, ref: body.ref, discardFuture: body.linear });
    if (!plan.restorable)
      throw new ForgeError("INVALID_ARGUMENT", `the page does not restore this kind of session`, {
        hint: "restore files with `forge files restore REF` in the workspace",
      });
    return sendJson(c, await call(restoreOperation, { session, ref: body.ref, discardFuture: body.linear }));
  });

  // A conversation's own writes: the body is the operation's input, the session is the URL's.
  app.post("/api/sessions/:name/messages", async (c) => sendJson(c, await call(chatAppendOperation, await sessionBody(c))));

  app.post("/api/sessions/:name/save", async (c) => sendJson(c, await call(chatSaveOperation, await sessionBody(c))));

  // The agent host sessions of the project, and importing those recorded before Forge: the body is agent_import's input ({} for the defaults).
  app.get("/api/agent/sessions", async (c) => sendJson(c, await call(agentListOperation, {})));
  app.post("/api/agent/import", async (c) => sendJson(c, await call(agentImportOperation, await objectBody(c))));

  // Server-sent events: "change" whenever a checkpoint is added or removed anywhere, or a
  // session's working state moves, so the page follows other processes' work.
  app.get("/api/events", (c) =>
    streamSSE(c, async (stream) => {
      let last = await fingerprint(store);
      await stream.writeSSE({ event: "hello", data: last });
      while (!stream.aborted && !stream.closed) {
        await stream.sleep(options.pollMs ?? 1000);
        const now = await fingerprint(store).catch(() => last);
        if (now !== last) {
          last = now;
          await stream.writeSSE({ event: "change", data: now });
        }
      }
    }),
  );

  return app;
}

/** Changes when any session gains or loses a checkpoint or moves its working state. */
async function fingerprint(store: Store): Promise<string> {
  const parts: string[] = [];
  for (const s of await store.listSessions()) {
    const session = await store.getSession(s.name).catch(() => undefined);
    parts.push(`${s.id}:${s.checkpoints}:${session ? await session.workVersion() : "-"}:${(await session?.head())?.checkpoint?.id ?? ""}`);
  }
  return String(parts.join("|").length) + ":" + hashText(parts.join("|"));
}

function hashText(s: string): string {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619) >>> 0;
  return h.toString(36);
}

interface Refusal {
  readonly status: 400 | 401 | 403 | 415;
  readonly code: string;
  readonly message: string;
}

/** A result as JSON, however deeply its state nests (c.json is JSON.stringify, which runs out of stack). */
function sendJson(c: Context, value: unknown): Response {
  return c.body(jsonText(value), 200, { "content-type": "application/json; charset=UTF-8" });
}

function guard(c: Context, options: AppOptions): Refusal | null {
  const host = (c.req.header("host") ?? "").toLowerCase();
  if (!options.allowedHosts.includes("*") && !options.allowedHosts.includes(host)) {
    return { status: 403, code: "FORBIDDEN_HOST", message: `this server does not answer to host "${host}"` };
  }
  const read = c.req.method === "GET" || c.req.method === "HEAD";
  // The page and its assets: the same bytes as in the package, no data from the store. A
  // browser fetches them without the token (a <script> sends no header; a reload no longer
  // has ?token= in the address), so they need none; everything they load does.
  if (!(read && Object.hasOwn(ASSETS, c.req.path))) {
    const auth = c.req.header("authorization") ?? "";
    // ?token= on reads only (EventSource cannot send a header); a write carries it in its header.
    const given = auth.startsWith("Bearer ") ? auth.slice(7) : read ? (c.req.query("token") ?? "") : "";
    if (!sameSecret(given, options.token)) return { status: 401, code: "UNAUTHORIZED", message: "a token is required: open the URL `forge ui` printed" };
  }
  if (!read) {
    if (c.req.method !== "POST") return { status: 400, code: "BAD_METHOD", message: `${c.req.method} is not used here` };
    // Browsers send Origin with every POST; a request without one is not from the page.
    const origin = c.req.header("origin");
    if (origin === undefined) return { status: 403, code: "CROSS_ORIGIN", message: "a request without an Origin header is refused" };
    if (origin.toLowerCase() !== `http://${host}`) return { status: 403, code: "CROSS_ORIGIN", message: `requests from ${origin} are refused` };
    if (c.req.header("sec-fetch-site") === "cross-site") return { status: 403, code: "CROSS_ORIGIN", message: "cross-site requests are refused" };
    if (!(c.req.header("content-type") ?? "").toLowerCase().startsWith("application/json")) {
      return { status: 415, code: "BAD_CONTENT_TYPE", message: "send a JSON body (Content-Type: application/json)" };
    }
  }
  return null;
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

class BadRequest extends Error {}

/** A JSON object body: an operation's raw input. */
async function objectBody(c: Context): Promise<Record<string, unknown>> {
  const raw = await readBody(c);
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new BadRequest("invalid body: expected a JSON object");
  return raw as Record<string, unknown>;
}

/** A JSON object body with the session the URL names added: an operation's raw input. */
async function sessionBody(c: Context): Promise<Record<string, unknown>> {
  const raw = await readBody(c);
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new BadRequest("invalid body: expected a JSON object");
  if (Object.hasOwn(raw, "session")) throw new BadRequest('invalid body: "session" is named by the URL');
  return { ...raw, session: c.req.param("name") };
}

/** An operation's input from the request's parameters, checked with the operation's schema (fields left undefined are absent). */
function parseInput<S extends Shape, R>(op: Operation<S, R>, raw: Record<string, unknown>): InputOf<S> {
  const given = Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== undefined));
  const r = z.object(op.input(z)).strict().safeParse(given);
  if (!r.success) {
    const issue = r.error.issues[0];
    const key = issue?.path[0];
    throw new BadRequest(
      `${key === undefined ? "invalid request" : given[String(key)] === undefined ? `"${String(key)}" is missing` : `invalid ${String(key)}`}: ${issue?.message ?? "bad value"}`,
    );
  }
  return r.data as InputOf<S>;
}

async function readBody(c: Context): Promise<unknown> {
  try {
    return (await c.req.json()) as unknown;
  } catch {
    throw new BadRequest("the body is not valid JSON");
  }
}

async function jsonBody<T>(c: Context, schema: z.ZodType<T>): Promise<T> {
  const r = schema.safeParse(await readBody(c));
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new BadRequest(`invalid body: ${issue?.path.length ? `${issue.path.join(".")}: ` : ""}${issue?.message ?? "bad value"}`);
  }
  return r.data;
}

const NOT_FOUND = new Set(["SESSION_NOT_FOUND", "CHECKPOINT_NOT_FOUND", "NOT_FOUND", "BRANCH_NOT_FOUND"]);

function errorResponse(c: Context, e: unknown): Response {
  if (e instanceof BadRequest) return c.json({ error: e.message, code: "BAD_REQUEST" }, 400);
  if (e instanceof ForgeError) {
    const status = NOT_FOUND.has(e.code) ? 404 : e.code === "STORE_UNAVAILABLE" ? 503 : e.code === "CONFLICT" ? 409 : e.code === "CORRUPT_OBJECT" ? 500 : 400;
    return c.json({ error: e.message, code: e.code, ...(e.hint && { hint: e.hint }) }, status);
  }
  return c.json({ error: `internal error: ${(e as Error)?.message ?? String(e)}`, code: "INTERNAL" }, 500);
}
