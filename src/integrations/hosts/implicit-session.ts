// The session of a host whose hook payloads name none (Kiro's CLI hooks send the event, the
// folder and the tool; its IDE hooks only the prompt in USER_PROMPT): Forge keeps one current
// session per host and project in .forge/agents/<host>/current, made anew at each
// session-start (Kiro CLI's agentSpawn) and after a session-end, and used by every other
// event, so a chat's prompts, tools and stops are one timeline.
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { FileLock } from "../../core/file-lock.js";
import { writeFileAtomic } from "../../core/files.js";
import type { CaptureKind, HostId } from "./types.js";

interface Current {
  readonly id: string;
  readonly started: string;
  readonly ended: boolean;
}

function readCurrent(path: string): Current | undefined {
  try {
    const v = JSON.parse(readFileSync(path, "utf8")) as Partial<Current>;
    return typeof v.id === "string" && /^[\w.-]{1,128}$/.test(v.id) ? { id: v.id, started: String(v.started ?? ""), ended: v.ended === true } : undefined;
  } catch {
    return undefined;
  }
}

/** A new session id: the host, the time and a random part ("kiro-20261125T101500-3fa2c1"). */
function newId(host: HostId, now: Date): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "");
  return `${host}-${stamp}-${randomBytes(3).toString("hex")}`;
}

/** The session id Forge gives `host`'s event `kind` in the project whose .forge folder is `forgeDir`. */
export async function implicitSessionId(forgeDir: string, host: HostId, kind: CaptureKind, now = new Date()): Promise<string> {
  const dir = join(forgeDir, "agents", host);
  mkdirSync(dir, { recursive: true });
  // Not a .json name: the folder's *.json files are the sessions' hook states.
  const path = join(dir, "current");
  const lock = new FileLock(`${path}.lock`, { timeoutMs: 30_000, info: { what: "forge hook" } });
  await lock.acquire();
  try {
    const cur = readCurrent(path);
    const fresh = cur === undefined || cur.ended || kind === "session-start";
    const id = fresh ? newId(host, now) : cur.id;
    const next: Current = { id, started: fresh ? now.toISOString() : cur.started, ended: kind === "session-end" };
    writeFileAtomic(path, `${JSON.stringify(next)}\n`);
    return id;
  } finally {
    lock.release();
  }
}
