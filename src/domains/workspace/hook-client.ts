// The hook process's side of handing a capture hook to a long-lived Forge process of its
// workspace (hook-serve.ts): bin/forge.js calls it before it loads the CLI, so a hook that
// is served costs Node's start, reading its stdin and one round trip on the workspace's hint
// socket. Only `forge hook <kind> --host <id>` as `forge enable` writes it is offered, with
// its payload on a pipe or in a file; anything else, no server, or a refusal leaves the hook
// to the CLI, with the stdin read here handed over (cli/hook-input.ts). FORGE_HOOK_SERVE=0
// turns it off.
import { fstatSync, readdirSync, readFileSync } from "node:fs";
import { findForgeRoot } from "../../core/config.js";
import { parsePayload, payloadCwd } from "../../core/hook-payload.js";
import { mark } from "../../core/trace.js";
import { bundleBuild, type ServedHookAnswer, type ServedHookRequest, servedEnv } from "./hook-serve.js";
import { askSocket, HINT_VERSION, hintSocketPath, ownSocket, watchDir } from "./watch-hint.js";

/** Whether the hook was served (its output written, its exit code set), and else the stdin read for the CLI. */
export interface HookHandOver {
  readonly served: boolean;
  readonly stdin?: string;
}

/** How long a hook waits for a server that took it (hosts give a hook 60 s): then it runs itself. */
const ANSWER_MS = 50_000;

const NAME = /^[a-z][a-z-]*$/;

/** Offers the hook `args` (the command line after `forge`) to the workspace's long-lived process; `bundle`: the CLI bundle this process would load. */
export async function handHookOver(args: readonly string[], bundle: string): Promise<HookHandOver> {
  if (process.env["FORGE_HOOK_SERVE"] === "0") return { served: false };
  const [command, kind, flag, host] = args;
  if (args.length !== 4 || command !== "hook" || flag !== "--host" || !NAME.test(kind ?? "") || !NAME.test(host ?? "")) return { served: false };
  let stdin: string;
  try {
    const st = fstatSync(0);
    // A terminal (or no stdin at all) is left to the CLI, which does not wait on it.
    if (!st.isFIFO() && !st.isFile() && !st.isSocket()) return { served: false };
    stdin = readFileSync(0, "utf8");
  } catch {
    return { served: false };
  }
  const notServed = (why: string): HookHandOver => {
    mark(`hook: not handed over (${why})`);
    return { served: false, stdin };
  };
  try {
    // Nothing answers in the watch folder: no need to name the workspace's socket (which loads crypto).
    if (!readdirSync(watchDir()).some((n) => n.startsWith("files-") && n.endsWith(".sock"))) return notServed("no server");
    let cwd = process.cwd();
    try {
      cwd = payloadCwd(parsePayload(stdin)) ?? cwd;
    } catch {
      // Not JSON: the CLI says so.
    }
    const root = findForgeRoot(cwd);
    if (root === undefined) return notServed("no store");
    const socket = ownSocket(hintSocketPath(root), watchDir());
    if (socket === undefined) return notServed("no server");
    const request: ServedHookRequest = {
      build: bundleBuild(bundle),
      kind: kind as string,
      host: host as string,
      strict: process.env["FORGE_HOOK_STRICT"] === "1",
      stdin,
      cwd: process.cwd(),
      env: servedEnv(),
    };
    const line = await askSocket(socket, `${JSON.stringify({ v: HINT_VERSION, hook: request })}\n`, ANSWER_MS);
    const answer = line === undefined ? undefined : parseAnswer(line);
    if (answer === undefined) return notServed("no answer");
    if (!("served" in answer)) return notServed(answer.refused);
    mark(`hook: served by pid ${answer.served.pid}`);
    // A host that stopped reading is no error of the hook's (the CLI's own output does the same).
    for (const stream of [process.stdout, process.stderr]) stream.on("error", () => {});
    if (answer.served.stderr !== "") process.stderr.write(answer.served.stderr);
    if (answer.served.stdout !== "") process.stdout.write(answer.served.stdout);
    if (answer.served.code !== 0) process.exitCode = answer.served.code;
    return { served: true };
  } catch {
    return notServed("failed");
  }
}

function parseAnswer(line: string): ServedHookAnswer | undefined {
  try {
    const a = JSON.parse(line) as { v?: unknown; served?: { stdout?: unknown; stderr?: unknown; code?: unknown; pid?: unknown }; refused?: unknown };
    if (a.v !== HINT_VERSION) return undefined;
    const s = a.served;
    if (s !== undefined && typeof s.stdout === "string" && typeof s.stderr === "string" && typeof s.code === "number" && typeof s.pid === "number")
      return { v: HINT_VERSION, served: { stdout: s.stdout, stderr: s.stderr, code: s.code, pid: s.pid } };
    return typeof a.refused === "string" ? { v: HINT_VERSION, refused: a.refused } : undefined;
  } catch {
    return undefined;
  }
}
