// Process start per command (issue 18: "measure module count and start time per command"):
// each command as a fresh `node bin/forge.js …` process, its wall time against `node -e 0`
// in the same run (alternating, medians), and what it loaded: the script files `require`
// read (bin/ is CommonJS, the CLI one bundled script; packages left outside it count file by
// file) and Node's own internal modules beyond those a bare `node -e 0` has. Counted by a
// preload script (-r) that reads `require.cache` and `process.moduleLoadList` at exit.
//
//   npm run bench:start
//   (= tsc -p tsconfig.bench.json && node build/bench/start.js)
//   npm run bench:start -- --quick     fewer repetitions; bench/results/start.md left alone
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkDistFresh, distStamp, FORGE_BIN, load, machine } from "./lib/cli.js";
import { publish, runMain } from "./lib/report.js";
import { formatMs, summarize } from "./lib/stats.js";
import { cleanEnv } from "./lib/workspace-fixtures.js";

const QUICK = process.argv.includes("--quick");
const REPS = QUICK ? 3 : 11;
const COMMAND = "npm run bench:start";
const log = (msg: string) => process.stderr.write(`[start] ${msg}\n`);

/** Written to fd 3 at exit: the script files \`require\` loaded (itself left out) and Node's internal modules. */
const COUNTER = `
const { writeSync } = require("node:fs");
// Workers (the walk preload's) run -r scripts too: only the main thread counts.
if (require("node:worker_threads").isMainThread) process.on("exit", () => {
  const builtins = process.moduleLoadList.filter((m) => m.startsWith("NativeModule ")).length;
  const files = Object.keys(require.cache).filter((f) => !f.endsWith("count-modules.cjs")).length;
  writeSync(3, JSON.stringify({ builtins, files }));
});`;

interface Case {
  readonly label: string;
  readonly args: readonly string[];
  readonly input?: string;
}

function run(cmd: string, args: readonly string[], cwd: string, input?: string, extraFd = false): { ms: number; counts?: { builtins: number; files: number } } {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, {
    cwd,
    env: cleanEnv(),
    input: input ?? "",
    stdio: ["pipe", "ignore", "pipe", ...(extraFd ? (["pipe"] as const) : [])],
    encoding: "utf8",
  });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${[cmd, ...args].join(" ")} exited ${r.status}: ${String(r.stderr).trim().split("\n")[0]}`);
  const out = extraFd ? String((r.output as unknown as (string | null)[])[3] ?? "") : "";
  return { ms, ...(out !== "" && { counts: JSON.parse(out) as { builtins: number; files: number } }) };
}

async function main(): Promise<void> {
  checkDistFresh();
  const dist = distStamp();
  const loadBefore = load();
  const work = mkdtempSync(join(tmpdir(), "forge-bench-start-"));
  try {
    const counter = join(work, "count-modules.cjs");
    writeFileSync(counter, COUNTER);
    const repo = join(work, "repo");
    spawnSync("git", ["init", "-q", repo]);
    for (let i = 0; i < 50; i++) writeFileSync(join(repo, `f${i}.txt`), `file ${i}\n`);
    const forge = (args: readonly string[], input?: string) => run(process.execPath, [FORGE_BIN, ...args], repo, input);
    forge(["init"]);
    forge(["files", "snapshot", "base"]);
    writeFileSync(join(repo, "f1.txt"), "changed\n");
    const payload = JSON.stringify({
      session_id: "bench-start",
      cwd: repo,
      hook_event_name: "PostToolUse",
      tool_name: "Edit",
      tool_input: { file_path: join(repo, "f1.txt") },
      tool_response: { success: true },
    });
    const cases: Case[] = [
      { label: "`forge --version`", args: ["--version"] },
      { label: "`forge --help`", args: ["--help"] },
      { label: "`forge files status`", args: ["files", "status"] },
      { label: "`forge hook post-edit` (an Edit payload)", args: ["hook", "post-edit"], input: payload },
      { label: "`forge checkpoint list`", args: ["checkpoint", "list"] },
      { label: "`forge search file`", args: ["search", "file"] },
      { label: "`forge agent list`", args: ["agent", "list"] },
      { label: "`forge mcp --help`", args: ["mcp", "--help"] },
    ];
    for (const c of cases) forge(c.args, c.input); // untimed: the code cache holds each command's code after its first run
    const node = (): number => run(process.execPath, ["-e", "0"], repo).ms;
    writeFileSync(join(work, "empty.cjs"), "");
    const baseline = run(process.execPath, ["-r", counter, join(work, "empty.cjs")], repo, undefined, true).counts as { builtins: number; files: number };
    const rows: string[] = [];
    for (const c of cases) {
      const f: number[] = [];
      const n: number[] = [];
      for (let i = 0; i < REPS; i++) {
        if (i % 2) {
          n.push(node());
          f.push(forge(c.args, c.input).ms);
        } else {
          f.push(forge(c.args, c.input).ms);
          n.push(node());
        }
      }
      const counts = run(process.execPath, ["-r", counter, FORGE_BIN, ...c.args], repo, c.input, true).counts as { builtins: number; files: number };
      const fm = summarize(f).median;
      const nm = summarize(n).median;
      rows.push(`| ${c.label} | ${formatMs(fm - nm)} | ${formatMs(fm)} | ${formatMs(nm)} | ${counts.files} | ${counts.builtins - baseline.builtins} |`);
      log(`${c.label}: ${formatMs(fm)} (node ${formatMs(nm)}), ${counts.files} files, +${counts.builtins - baseline.builtins} of Node's modules`);
    }
    const out = [
      "# Process start per command",
      "",
      `Command: \`${COMMAND}\`${QUICK ? " (QUICK MODE)" : ""}`,
      "",
      `Run: ${new Date().toISOString()} · ${machine()} · load average ${loadBefore} at the start, ${load()} at the end`,
      "",
      "| command | over `node -e 0` | Forge | `node -e 0` | script files loaded | Node's internal modules beyond `node -e 0`'s |",
      "|---|---|---|---|---|---|",
      ...rows,
      "",
      `- Each command a whole \`node bin/forge.js …\` process from this checkout (${dist}) in a 50-file git work tree with a store, alternating with \`node -e 0\`; medians of ${REPS}, after one untimed run of every command (which writes the code cache).`,
      "- Script files: what `require` loaded (bin/forge.js, bin/code-cache.js, the bundle, the walk preload's starter, and packages left outside the bundle such as better-sqlite3's own files), counted at exit; the bundle counts as one.",
      "",
    ].join("\n");
    publish("start", out, { quick: QUICK, log });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

runMain(main);
