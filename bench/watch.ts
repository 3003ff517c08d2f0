// Watch benchmark: `forge watch --files` running on the workspace bench's generated tree
// (10,000 files in 500 folders, ≈40 MB), against a shadow git repository on the same tree
// (git --git-dir=S --work-tree=R add -A && commit) for the same edits.
//
//   npm run bench:watch
//   (= tsc -p tsconfig.bench.json && node --expose-gc build/bench/watch.js)
//
// Measured:
//   · edit → stored: 10 files edited (a line inserted, one appended), then the time until the
//     watcher prints the line of the snapshot holding them (it prints after the commit). It
//     includes the quiet period (2 s by default, the watcher waits for the edits to stop);
//     "work" is that minus the quiet period, and the watcher's own figure for the snapshot.
//     The anchor is the same edit committed by git, two processes timed from the outside.
//     These snapshots list only the folders the file events named (walk "limited"); then a
//     few rounds where a folder is renamed with the edits, which the events cannot vouch
//     for, so the watcher walks everything (walk "full"): what any doubtful burst costs.
//   · idle cost: CPU time the watcher process used over a minute with nothing changing
//     (utime + stime from /proc/PID/stat), as a share of one core; and its memory.
//   · a full rescan (the periodic walk through the stat cache that catches what file watches
//     miss, every 5 minutes by default): its CPU time, in this process through the library.
//   · setting up the watches: one per folder (Forge's) against Node's fs.watch with
//     `recursive: true`, which on Linux watches every file and folder — counted from
//     /proc/self/fdinfo.
//
// `--quick` runs a smaller tree, two rounds and a 10-second idle, and leaves
// bench/results/watch.md alone.
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, watch as fsWatch, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { openStore } from "../src/index.js";
import { Workspace } from "../src/domains/workspace/workspace.js";
import { TreeWatcher } from "../src/domains/watch/tree-watcher.js";
import { collectGarbage, formatMs, formatPercent, formatRatio, msSince, summarize } from "./lib/stats.js";
import { applyEdits, cleanEnv, generateTree, planEdits, runTimed, ShadowGit } from "./lib/workspace-fixtures.js";
import { Rng } from "./lib/workloads.js";

const QUICK = process.argv.includes("--quick");
const CONFIG = {
  rounds: QUICK ? 2 : 5,
  changed: 10,
  shape: QUICK ? { topDirs: 5, subDirs: 10, perFolder: 20 } : { topDirs: 20, subDirs: 25, perFolder: 20 },
  idleMs: QUICK ? 10_000 : 60_000,
  quietMs: 2000,
  rescans: QUICK ? 2 : 5,
  fullRounds: QUICK ? 1 : 3,
  /** Between rounds: neither the stat cache nor git's index sees the edits as racy (~1 s rules). */
  settleMs: 1100,
} as const;
const COMMAND = "npm run bench:watch";

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = join(HERE, "..", "..");
const FORGE_BIN = join(REPO, "bin", "forge.js");
const NODE = process.execPath;
const CLK_TCK = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;

function log(msg: string): void {
  process.stderr.write(`[bench:watch] ${msg}\n`);
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

interface Line {
  readonly event: string;
  readonly [key: string]: unknown;
}

/** `forge watch --json` as a child, its lines read as they come. */
class WatchChild {
  readonly child: ChildProcessWithoutNullStreams;
  readonly lines: Line[] = [];
  #waiters = new Set<() => void>();
  #stderr = "";
  readonly exited: Promise<number | null>;

  constructor(cwd: string, args: readonly string[], env: NodeJS.ProcessEnv) {
    this.child = spawn(NODE, [FORGE_BIN, "watch", ...args, "--json"], { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
    this.child.stderr.setEncoding("utf8");
    this.child.stderr.on("data", (s: string) => (this.#stderr += s));
    createInterface({ input: this.child.stdout }).on("line", (l) => {
      this.lines.push(JSON.parse(l) as Line);
      for (const w of [...this.#waiters]) w();
    });
    this.exited = new Promise((resolve) => this.child.once("exit", (code) => resolve(code)));
  }

  get pid(): number {
    return this.child.pid as number;
  }

  /** The first line from `from` on that matches. */
  waitFor(match: (l: Line) => boolean, from = 0, timeoutMs = 120_000): Promise<Line> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const hit = this.lines.slice(from).find(match);
        if (hit) {
          this.#waiters.delete(check);
          clearTimeout(timer);
          resolve(hit);
        }
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(check);
        reject(
          new Error(`forge watch did not print the line awaited in ${timeoutMs} ms; lines: ${JSON.stringify(this.lines.slice(from))}; stderr: ${this.#stderr}`),
        );
      }, timeoutMs);
      this.#waiters.add(check);
      check();
    });
  }
}

/** CPU time (user + system) a process has used, in ms, and its resident memory. */
function procUsage(pid: number): { cpuMs: number; rssBytes: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(f[11]) + Number(f[12]); // fields 14 (utime) and 15 (stime)
  const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return { cpuMs: (ticks * 1000) / CLK_TCK, rssBytes: Number(rss?.[1] ?? 0) * 1024 };
}

/** inotify watches this process holds (lines "inotify wd:" of its inotify descriptors' fdinfo). */
function inotifyWatches(): number {
  let n = 0;
  for (const fd of readdirSync("/proc/self/fd")) {
    let target: string;
    try {
      target = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue;
    }
    if (target !== "anon_inode:inotify") continue;
    n += readFileSync(`/proc/self/fdinfo/${fd}`, "utf8")
      .split("\n")
      .filter((l) => l.startsWith("inotify wd:")).length;
  }
  return n;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "forge-bench-watch-"));
  const root = join(dir, "tree");
  mkdirSync(root);
  const out: string[] = [];
  const say = (s = "") => {
    out.push(s);
    console.log(s);
  };
  let watcher: WatchChild | undefined;
  try {
    log(`generating the tree in ${root}`);
    const tree = generateTree(root, 42, CONFIG.shape);
    const env = cleanEnv({ TMPDIR: dir });
    runTimed(NODE, [FORGE_BIN, "init"], { cwd: root, env });
    const git = new ShadowGit(join(dir, "shadow.git"), root);
    git.init();
    log("git's first add -A && commit");
    const gitFirst = git.snapshot("first");

    // Setting up the watches, in this process: Forge's per-folder watches, then Node's recursive watch.
    const base = inotifyWatches();
    let start = process.hrtime.bigint();
    const tw = new TreeWatcher({ root, onChange: () => undefined, onError: (e) => log(`watch error: ${e.message}`) });
    tw.sync();
    const oursMs = msSince(start);
    const oursWatches = inotifyWatches() - base;
    tw.close();
    collectGarbage();
    start = process.hrtime.bigint();
    const rec = fsWatch(root, { recursive: true }, () => undefined);
    const nodeMs = msSince(start);
    const nodeWatches = inotifyWatches() - base;
    rec.close();

    log("starting forge watch --files");
    const spawnedAt = process.hrtime.bigint();
    watcher = new WatchChild(root, ["--files"], env);
    const started = await watcher.waitFor((l) => l.event === "started");
    const startedMs = msSince(spawnedAt);
    const first = await watcher.waitFor((l) => l.event === "snapshot");
    const firstMs = msSince(spawnedAt);
    await sleep(CONFIG.settleMs);

    // Rounds: edit 10 files → the watcher's snapshot line; then git commits the same edit.
    const rng = new Rng(7);
    const latency: number[] = [];
    const work: number[] = [];
    const reported: number[] = [];
    const gitMs: number[] = [];
    const walks: string[] = [];
    for (let i = 0; i < CONFIG.rounds; i++) {
      const edits = planEdits(rng, root, tree.small, CONFIG.changed, `round ${i}`);
      const from = watcher.lines.length;
      applyEdits(root, edits);
      const t0 = process.hrtime.bigint();
      const line = await watcher.waitFor((l) => l.event === "snapshot" || l.event === "error" || l.event === "skipped", from);
      const ms = msSince(t0);
      if (line.event !== "snapshot") throw new Error(`round ${i}: the watcher printed ${JSON.stringify(line)}`);
      const changes = line["changes"] as { modified: number };
      if (changes.modified !== CONFIG.changed)
        throw new Error(`round ${i}: the snapshot holds ${JSON.stringify(changes)}, not ${CONFIG.changed} modified files`);
      latency.push(ms);
      work.push(ms - CONFIG.quietMs);
      reported.push(line["ms"] as number);
      walks.push(line["walk"] as string);
      gitMs.push(git.snapshot(`round ${i}`).ms);
      log(
        `round ${i}: edit → stored ${formatMs(ms)} (snapshot ${formatMs(line["ms"] as number)}, walk ${line["walk"] as string}); git ${formatMs(gitMs.at(-1) as number)}`,
      );
      await sleep(CONFIG.settleMs);
    }

    // Rounds the events cannot vouch for: a folder renamed along with the edits (its watch
    // follows it under the old name), so the snapshot walks the whole tree.
    const moving = "pkg00/mod00";
    const fullWork: number[] = [];
    const fullGit: number[] = [];
    const fullWalks: string[] = [];
    for (let i = 0; i < CONFIG.fullRounds; i++) {
      const edits = planEdits(
        rng,
        root,
        tree.small.filter((p) => !p.startsWith(`${moving}/`)),
        CONFIG.changed,
        `full round ${i}`,
      );
      const from = watcher.lines.length;
      const [a, b] = i % 2 === 0 ? [moving, `${moving}-moved`] : [`${moving}-moved`, moving];
      renameSync(join(root, a), join(root, b));
      applyEdits(root, edits);
      const t0 = process.hrtime.bigint();
      const line = await watcher.waitFor((l) => l.event === "snapshot" || l.event === "error" || l.event === "skipped", from);
      const ms = msSince(t0);
      if (line.event !== "snapshot") throw new Error(`full round ${i}: the watcher printed ${JSON.stringify(line)}`);
      const changes = line["changes"] as { modified: number };
      if (changes.modified !== CONFIG.changed)
        throw new Error(`full round ${i}: the snapshot holds ${JSON.stringify(changes)}, not ${CONFIG.changed} modified files`);
      fullWork.push(ms - CONFIG.quietMs);
      fullWalks.push(line["walk"] as string);
      fullGit.push(git.snapshot(`full round ${i}`).ms);
      log(
        `full round ${i}: edit → stored ${formatMs(ms)} (snapshot ${formatMs(line["ms"] as number)}, walk ${line["walk"] as string}); git ${formatMs(fullGit.at(-1) as number)}`,
      );
      await sleep(CONFIG.settleMs);
    }

    // Idle: nothing changes for a minute. Measured from 10 s after the last work, once V8's
    // memory reducer has run its after-work collections.
    await sleep(10_000);
    const idleFrom = watcher.lines.length;
    const u0 = procUsage(watcher.pid);
    const w0 = process.hrtime.bigint();
    log(`idle for ${CONFIG.idleMs / 1000} s`);
    await sleep(CONFIG.idleMs);
    const u1 = procUsage(watcher.pid);
    const idleWall = msSince(w0);
    const idleCpu = u1.cpuMs - u0.cpuMs;
    const idleLines = watcher.lines.slice(idleFrom);
    if (idleLines.length > 0) throw new Error(`the watcher printed while nothing changed: ${JSON.stringify(idleLines)}`);

    watcher.child.kill("SIGTERM");
    const code = await watcher.exited;
    if (code !== 0) throw new Error(`forge watch exited ${code} after SIGTERM`);
    const fsck = runTimed(NODE, [FORGE_BIN, "fsck"], { cwd: root, env });
    if (!/ok: the store is whole/.test(fsck.stdout)) throw new Error(`fsck after the run: ${fsck.stdout}`);

    // A full rescan with nothing changed, through the library in this process (what the watcher does every 5 minutes).
    const store = await openStore(`sqlite:${join(root, ".forge", "forge.db")}`);
    const ws = await Workspace.open(store, { root });
    const rescanCpu: number[] = [];
    const rescanWall: number[] = [];
    for (let i = 0; i < CONFIG.rescans; i++) {
      collectGarbage();
      const c0 = process.cpuUsage();
      const t0 = process.hrtime.bigint();
      const r = await ws.snapshotIfChanged("bench rescan");
      rescanWall.push(msSince(t0));
      const c = process.cpuUsage(c0);
      rescanCpu.push((c.user + c.system) / 1000);
      if (r !== null) throw new Error("a rescan of an unchanged tree took a snapshot");
    }
    await store.close();

    const L = summarize(latency);
    const W = summarize(work);
    const R = summarize(reported);
    const G = summarize(gitMs);
    const FW = summarize(fullWork);
    const FG = summarize(fullGit);
    const limited = walks.filter((w) => w === "limited").length;
    const full = fullWalks.filter((w) => w === "full").length;
    const RC = summarize(rescanCpu);
    const RW = summarize(rescanWall);
    const idleShare = idleCpu / idleWall;
    const rescanShare = RC.median / 300_000;

    say("# forge watch benchmark");
    say();
    say(`Command: \`${COMMAND}\``);
    say();
    say(
      `Run: ${new Date().toISOString()} · Node ${process.version}, ${cpus()[0]?.model ?? "?"} × ${cpus().length}, ${process.platform}/${process.arch} · tree: ${tree.files.length.toLocaleString("en")} files in ${tree.folders} folders, ${(tree.bytes / 1024 / 1024).toFixed(1)} MiB · ${CONFIG.rounds} rounds of ${CONFIG.changed} edited files`,
    );
    say();
    say("| measure | forge watch --files | anchor: shadow git | ratio | target | met? |");
    say("| --- | --- | --- | --- | --- | --- |");
    say(
      `| edit of 10 files → snapshot stored, median (n=${L.n}), default quiet period ${CONFIG.quietMs / 1000} s included | ${formatMs(L.median)} | — | — | — | — |`,
    );
    say(
      `| … of which work (minus the quiet period), median · git \`add -A\` + \`commit\` of the same edit | ${formatMs(W.median)} | ${formatMs(G.median)} | ${formatRatio(W.median, G.median)} | no slower than git | ${W.median <= G.median ? "yes" : "NO"} |`,
    );
    say(
      `| … the snapshot as the watcher timed it (list the folders of the changed paths, the rest from the last walk; hash 10 files; commit), median · walks limited to the changed folders | ${formatMs(R.median)} · ${limited} of ${walks.length} | — | ${formatRatio(R.median, G.median)} | — | — |`,
    );
    say(
      `| a burst the file events cannot vouch for (a folder renamed with the 10 edits): full walk through the stat cache, work median (n=${FW.n}) · walks full · git of the same | ${formatMs(FW.median)} · ${full} of ${fullWalks.length} | ${formatMs(FG.median)} | ${formatRatio(FW.median, FG.median)} | — | — |`,
    );
    say(
      `| CPU while idle for ${Math.round(idleWall / 1000)} s (utime + stime of the watcher process) | ${formatMs(idleCpu)} = ${formatPercent(idleShare)} of a core | — | — | under 1 % of a core | ${idleShare < 0.01 ? "yes" : "NO"} |`,
    );
    say(`| memory of the idle watcher (VmRSS) | ${(u1.rssBytes / 1024 / 1024).toFixed(1)} MiB | — | — | — | — |`);
    say(
      `| one full rescan, nothing changed (library, in process), median CPU (n=${RC.n}) · wall | ${formatMs(RC.median)} · ${formatMs(RW.median)} | — | — | — | — |`,
    );
    say(`| … as a share of a core at the default rescan interval (5 min) | ${formatPercent(rescanShare)} | — | — | — | — |`);
    say(
      `| start: spawn → watching · → first snapshot of the whole tree | ${formatMs(startedMs)} · ${formatMs(firstMs)} | git's first add -A + commit ${formatMs(gitFirst.ms)} | ${formatRatio(firstMs, gitFirst.ms)} | — | — |`,
    );
    say(
      `| inotify watches to follow the tree, and time to set them up: one per folder (Forge) · Node's fs.watch recursive | ${oursWatches.toLocaleString("en")} in ${formatMs(oursMs)} | ${nodeWatches.toLocaleString("en")} in ${formatMs(nodeMs)} (Node) | ${formatRatio(oursWatches, nodeWatches)} | — | — |`,
    );
    say();
    say("Spread (min – max):");
    say();
    say(
      `- edit → stored: ${formatMs(L.min)} – ${formatMs(L.max)}; work: ${formatMs(W.min)} – ${formatMs(W.max)}; the watcher's snapshot: ${formatMs(R.min)} – ${formatMs(R.max)}; git: ${formatMs(G.min)} – ${formatMs(G.max)}`,
    );
    say(`- full-walk bursts: work ${formatMs(FW.min)} – ${formatMs(FW.max)}; git ${formatMs(FG.min)} – ${formatMs(FG.max)}`);
    say(`- rescan CPU: ${formatMs(RC.min)} – ${formatMs(RC.max)}`);
    say();
    say(
      `- Watcher: \`node bin/forge.js watch --files --json\` in the tree after \`forge init\` (SQLite store in .forge/), defaults otherwise (every 10 min, quiet period 2 s, rescan every 5 min, strategy warn); ${started["folders"] as number} folders watched. The first snapshot (${(first["changes"] as { created: number }).created.toLocaleString("en")} files) is taken at start, before the rounds.`,
    );
    say(
      "- A round: 10 small text files edited (a line inserted in the middle, one appended) by this process; the clock starts after the last write and stops when the snapshot's JSON line arrives on the watcher's stdout (printed after its commit). Then git (`git --git-dir=S --work-tree=R -c gc.auto=0 add -A` and `commit -q`, two processes, times summed) commits the same edit; 1.1 s pass before the next round so neither side sees racy timestamps. The watcher's line says how it walked (`walk`): `limited` when only the folders its file events named were listed again.",
    );
    say(
      `- Full-walk rounds: the same, plus the folder ${moving} renamed (and back, alternately) just before the edits. A folder renamed is one of the cases where the watcher does not trust its events to name every change (its watch follows the folder under the old name), so the snapshot walks all 10,000 entries through the stat cache — as every burst did before the walk was limited, and as a burst after an event flood, a watch failure or an ignore file change does.`,
    );
    say(
      "- Idle: after the rounds and 10 s of quiet (V8 runs its memory-reducing collections a few seconds after work), the watcher's CPU ticks (fields 14 + 15 of /proc/PID/stat) are read before and after the idle span; the watcher must print nothing meanwhile. Neither the 10-minute tick nor the 5-minute rescan falls in the span; the rescan row gives its cost separately.",
    );
    say(
      "- Watch set-up is measured in this process on the same tree: `TreeWatcher.sync()` against `fs.watch(root, { recursive: true })`, watches counted from /proc/self/fdinfo (Node's includes .forge/).",
    );
    say("- The machine is shared and noisy (±30 % between runs): read ratios near 1× as a tie.");
    if (!QUICK) {
      const file = join(REPO, "bench", "results", "watch.md");
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, out.join("\n") + "\n");
      log(`wrote ${file}`);
    }
  } finally {
    if (watcher && watcher.child.exitCode === null) {
      watcher.child.kill("SIGKILL");
      await watcher.exited;
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
