// Starting the web page's server: binds 127.0.0.1 unless told otherwise, and always with a
// token (given, or a random one) that every request but the page's own files must carry —
// on loopback too, where any local process could otherwise restore checkpoints.
import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import { serve, type ServerType } from "@hono/node-server";
import { ForgeError } from "../core/errors.js";
import type { Store } from "../timeline/store.js";
import { serveFileHints } from "../operations/watch/hints.js";
import { createApp } from "./app.js";

export interface UiOptions {
  readonly host?: string;
  /** 0 picks a free port. */
  readonly port?: number;
  /** The token every request must carry (default: a random one); at least 16 characters. */
  readonly token?: string;
  readonly pollMs?: number;
  /** The project whose files the page blames (default: the folder holding .forge above the current one). */
  readonly root?: string;
  /**
   * Run the workspace's capture hooks too (operations/hooks/served.ts): the store was opened
   * from this URL (`null`: FORGE_STORE, else the nearest .forge), so a hook can tell it is its own.
   */
  readonly serveHooks?: { readonly storeUrl: string | null };
}

export interface RunningUi {
  /** The URL to open, with the token in it. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly token: string;
  close(): Promise<void>;
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

export function isLoopback(host: string): boolean {
  return LOOPBACK.has(host.toLowerCase()) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

export async function startUi(store: Store, options: UiOptions = {}): Promise<RunningUi> {
  const host = options.host ?? "127.0.0.1";
  const port = options.port ?? 4500;
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new ForgeError("INVALID_ARGUMENT", `invalid port ${port}`, { hint: "a number from 0 to 65535" });
  const token = options.token ?? randomBytes(24).toString("base64url");
  if (token.length < 16) throw new ForgeError("INVALID_ARGUMENT", "the token must be at least 16 characters");

  let server: ServerType;
  const actualPort = await new Promise<number>((resolve, reject) => {
    const allowedHosts: string[] = [];
    const app = createApp(store, {
      allowedHosts,
      token,
      ...(options.pollMs !== undefined && { pollMs: options.pollMs }),
      ...(options.root !== undefined && { root: options.root }),
    });
    server = serve({ fetch: app.fetch, hostname: host, port }, (info: AddressInfo) => {
      const p = info.port;
      const names = isLoopback(host) ? ["127.0.0.1", "localhost", "[::1]"] : [host.includes(":") && !host.startsWith("[") ? `[${host}]` : host];
      // A non-loopback bind answers to whatever name clients use for it; the token guards it.
      if (!isLoopback(host)) allowedHosts.push("*");
      for (const n of names) allowedHosts.push(`${n.toLowerCase()}:${p}`);
      resolve(p);
    });
    server.once("error", (e: NodeJS.ErrnoException) =>
      reject(
        e.code === "EADDRINUSE"
          ? new ForgeError("INVALID_ARGUMENT", `port ${port} on ${host} is in use`, { hint: "pick another with --port, or --port 0 for any free one" })
          : new ForgeError("INVALID_ARGUMENT", `cannot listen on ${host}:${port}: ${e.message}`),
      ),
    );
  });
  const shown = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  const url = `http://${shown}:${actualPort}/?token=${encodeURIComponent(token)}`;
  // While it runs, the hooks and statuses of the workspace ask it which files changed (and, asked to, it runs their capture hooks).
  const hooks = options.serveHooks;
  const hints = await serveFileHints(options.root, hooks && { open: () => Promise.resolve(store), url: hooks.storeUrl ?? undefined });
  return {
    url,
    host,
    port: actualPort,
    token,
    close: () =>
      new Promise<void>((resolve) => {
        hints?.close();
        server.close(() => resolve());
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      }),
  };
}
