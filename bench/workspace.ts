// Workspace benchmark: Forge's file snapshots (`forge files …` and the Workspace API)
// against a shadow git repository (git --git-dir=S --work-tree=R add -A && commit), on
//   A · a generated tree: 10,000 files in 500 folders, ≈40 MB (mostly small text files,
//       some larger ones, a few over 1 MB, a few binary);
//   B · a real tree nobody here wrote: this project's node_modules, copied to a folder
//       named "modules" (Forge ignores node_modules/ by default; nothing here ignores "modules").
//
//   npm run bench:workspace
//   (= tsc -p tsconfig.bench.json && node --expose-gc build/bench/workspace.js)
//
// Each system gets its own copy of each tree (so no stat cache, index or page-cache state is
// shared). Every operation is timed three ways: the Forge CLI as a whole process
// (`node bin/forge.js files …`, spawn to exit, the store found through `forge init`'s
// .forge/ in the tree), the Forge library in this process (openStore + Workspace.open + the
// call + close), and git as whole processes. The small operations are repeated and the
// three systems interleaved, in an order that rotates every round.
//
// `--quick` runs a smaller generated tree and fewer rounds (for trying the harness, not for
// numbers) and leaves bench/results/workspace.md alone.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { openStore } from "../src/index.js";
import { Workspace } from "../src/domains/workspace/workspace.js";
import { sqliteFootprint } from "./lib/naive.js";
import { collectGarbage, formatBytes, formatMs, formatRatio, msSince, summarize, type Summary } from "./lib/stats.js";
import {
  applyEdits,
  cleanEnv,
  generateTree,
  type GeneratedTree,
  listFiles,
  planEdits,
  runTimed,
  ShadowGit,
  usage,
  type Edit,
} from "./lib/workspace-fixtures.js";
import { Rng } from "./lib/workloads.js";
import { publish, runMain } from "./lib/report.js";
import { checkDistFresh } from "./lib/cli.js";

const QUICK = process.argv.includes("--quick");
const CONFIG = {
  rounds: QUICK ? 2 : 5,
  changed: 10,
  shape: QUICK ? { topDirs: 5, subDirs: 10, perFolder: 20 } : { topDirs: 20, subDirs: 25, perFolder: 20 },
  startSamples: QUICK ? 3 : 10,
  /** Wait after writing files so that neither Forge's stat cache nor git's index sees them as racy (both use a ~1 s rule). */
  settleMs: 1100,
} as const;
const COMMAND = "npm run bench:workspace";

const HERE = dirname(fileURLToPath(import.meta.url));
// build/bench/workspace.js → the repository.
const REPO = join(HERE, "..", "..");
const FORGE_BIN = join(REPO, "bin", "forge.js");
const NODE = process.execPath;

type System = "cli" | "lib" | "git";
const SYSTEMS: readonly System[] = ["cli", "lib", "git"];

// ---------------------------------------------------------------- report table

interface Row {
  tree: string;
  operation: string;
  cli: string;
  lib: string;
  git: string;
  ratio: string;
  target: string;
  met: string;
}

const rows: Row[] = [];
const spread: string[] = [];

function row(r: Partial<Row> & Pick<Row, "tree" | "operation">): void {
  rows.push({ cli: "—", lib: "—", git: "—", ratio: "—", target: "—", met: "—", ...r });
}

function renderTable(): string {
  const header: Row = {
    tree: "tree",
    operation: "operation",
    cli: "forge CLI",
    lib: "forge library",
    git: "git",
    ratio: "ratio (forge CLI/git)",
    target: "target",
    met: "met?",
  };
  const cols = Object.keys(header) as (keyof Row)[];
  const line = (r: Row): string => "| " + cols.map((c) => r[c].replace(/\|/g, "\\|")).join(" | ") + " |";
  return [line(header), "| " + cols.map(() => "---").join(" | ") + " |", ...rows.map(line)].join("\n");
}

function log(msg: string): void {
  process.stderr.write(`[bench:workspace] ${msg}\n`);
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** The rotation of the systems for round `i`: each goes first, second and third in turn. */
function order(i: number): System[] {
  return SYSTEMS.map((_, k) => SYSTEMS[(i + k) % SYSTEMS.length] as System);
}

type Target = "3x" | "le";

/** A timing row: medians of the three systems; the target applies to the CLI's median against git's. */
function timingRow(tree: string, operation: string, s: Record<System, Summary>, target?: Target): void {
  const cli = s.cli.median;
  const git = s.git.median;
  row({
    tree,
    operation: s.cli.n > 1 ? `${operation}, median (n=${s.cli.n})` : operation,
    cli: formatMs(cli),
    lib: formatMs(s.lib.median),
    git: formatMs(git),
    ratio: formatRatio(cli, git),
    ...(target === "3x" && { target: "CLI ≥ 3× faster than git (≤ 0.33×)", met: cli * 3 <= git ? "yes" : "NO" }),
    ...(target === "le" && { target: "CLI no slower than git (≤ 1×)", met: cli <= git ? "yes" : "NO" }),
  });
  if (s.cli.n > 1) {
    const r = (x: Summary) => `${formatMs(x.min)} – ${formatMs(x.max)}`;
    spread.push(`| ${tree} | ${operation} | ${r(s.cli)} | ${r(s.lib)} | ${r(s.git)} |`);
  }
}

// ---------------------------------------------------------------- the three systems

/** One copy of a tree per system, and what runs there. */
class Contestants {
  readonly roots: Record<System, string>;
  readonly git: ShadowGit;
  readonly #cliEnv = cleanEnv();

  constructor(roots: Record<System, string>, gitDir: string) {
    this.roots = roots;
    this.git = new ShadowGit(gitDir, roots.git);
  }

  init(): void {
    runTimed(NODE, [FORGE_BIN, "init"], { cwd: this.roots.cli, env: this.#cliEnv });
    mkdirSync(join(this.roots.lib, ".forge"), { recursive: true });
    this.git.init();
  }

  cli(args: readonly string[]): { ms: number; stdout: string } {
    return runTimed(NODE, [FORGE_BIN, "files", ...args, "--root", this.roots.cli], { cwd: this.roots.cli, env: this.#cliEnv });
  }

  /** openStore + Workspace.open + `fn` + close, timed in this process (after a GC outside the timing). */
  async lib<T>(fn: (ws: Workspace) => Promise<T>): Promise<{ ms: number; value: T }> {
    collectGarbage();
    const start = process.hrtime.bigint();
    const store = await openStore(`sqlite:${join(this.roots.lib, ".forge", "forge.db")}`);
    try {
      const ws = await Workspace.open(store, { root: this.roots.lib });
      const value = await fn(ws);
      await store.close();
      return { ms: msSince(start), value };
    } catch (e) {
      await store.close();
      throw e;
    }
  }

  applyEdits(edits: readonly Edit[]): void {
    for (const s of SYSTEMS) applyEdits(this.roots[s], edits);
  }

  /** Each edited file holds `expected` again, in every copy (after a restore). */
  checkContents(expected: readonly Edit[], what: string): void {
    for (const s of SYSTEMS) {
      for (const e of expected) {
        if (!readFileSync(join(this.roots[s], e.path)).equals(e.data)) throw new Error(`${what}: ${s} left ${e.path} with other content than the snapshot's`);
      }
    }
  }
}

function expect(ok: boolean, what: string, detail: string): void {
  if (!ok) throw new Error(`${what}: ${detail}`);
}

/** "…: 10000 files; 0 created, 10 modified, 0 deleted; …" → the counts. */
function parseSnapshotLine(out: string): { files: number; created: number; modified: number; deleted: number } {
  const m = /: (\d+) files; (\d+) created, (\d+) modified, (\d+) deleted/.exec(out);
  if (!m) throw new Error(`cannot read forge's snapshot output: ${out.slice(0, 300)}`);
  return { files: Number(m[1]), created: Number(m[2]), modified: Number(m[3]), deleted: Number(m[4]) };
}

interface StoreSize {
  /** forge.db (+ -wal) after a TRUNCATE checkpoint; git: objects/ (Σ file sizes). */
  readonly store: number;
  /** du of the whole .forge/ or shadow git folder. */
  readonly disk: number;
  /** Forge's stat-cache.bin; git's index. */
  readonly cache: number;
}

function forgeSize(root: string): StoreSize {
  const db = join(root, ".forge", "forge.db");
  const store = sqliteFootprint(db).total;
  return { store, disk: usage(join(root, ".forge")).disk, cache: usage(join(root, ".forge", "stat-cache.bin")).apparent };
}

function gitSize(gitDir: string): StoreSize {
  return { store: usage(join(gitDir, "objects")).apparent, disk: usage(gitDir).disk, cache: usage(join(gitDir, "index")).apparent };
}

function sizeRows(tree: string, when: string, cli: StoreSize, lib: StoreSize, git: StoreSize, newBytes: number | undefined): void {
  const met = (x: number, y: number) => (x < y ? "yes" : "NO");
  row({
    tree,
    operation: `bytes stored ${when}: forge.db after WAL TRUNCATE · git objects/ (Σ loose object sizes)`,
    cli: formatBytes(cli.store),
    lib: formatBytes(lib.store) + (newBytes !== undefined ? ` (Σ newBytes ${formatBytes(newBytes)})` : ""),
    git: formatBytes(git.store),
    ratio: formatRatio(cli.store, git.store),
    target: "smaller than git's loose objects",
    met: met(cli.store, git.store),
  });
  row({
    tree,
    operation: `  … on disk (du: all of .forge/ · all of the shadow git folder)`,
    cli: formatBytes(cli.disk),
    lib: formatBytes(lib.disk),
    git: formatBytes(git.disk),
    ratio: formatRatio(cli.disk, git.disk),
    target: "smaller than git's",
    met: met(cli.disk, git.disk),
  });
  row({
    tree,
    operation: `  … of which the stat cache (.forge/stat-cache.bin) · git's index`,
    cli: formatBytes(cli.cache),
    lib: formatBytes(lib.cache),
    git: formatBytes(git.cache),
    ratio: formatRatio(cli.cache, git.cache),
  });
}

// ---------------------------------------------------------------- one tree

interface TreeSpec {
  /** Label in the table. */
  readonly label: string;
  /** Short name for folders. */
  readonly key: string;
  /** Fills a folder with the tree (called once per system). */
  readonly fill: (root: string) => void;
  /** Files the edits pick from (relative to the root). */
  readonly candidates: (root: string) => string[];
}

async function runTree(dir: string, spec: TreeSpec): Promise<void> {
  const T = spec.label;
  const roots = { cli: join(dir, `${spec.key}-cli`), lib: join(dir, `${spec.key}-lib`), git: join(dir, `${spec.key}-git`) } satisfies Record<System, string>;
  const t0 = process.hrtime.bigint();
  for (const s of SYSTEMS) {
    mkdirSync(roots[s], { recursive: true });
    spec.fill(roots[s]);
  }
  const c = new Contestants(roots, join(dir, `${spec.key}-shadow.git`));
  c.init();
  const content = usage(roots.git);
  log(`${spec.key}: three copies of ${content.files} files, ${formatBytes(content.apparent)}, ready in ${formatMs(msSince(t0))}`);
  const candidates = spec.candidates(roots.git);
  const rng = new Rng(spec.key === "a" ? 101 : 202);
  await sleep(CONFIG.settleMs);

  // First snapshot: everything read, hashed and stored.
  const first: Partial<Record<System, number>> = {};
  let firstNewBytes = 0;
  let gitSplit = { addMs: 0, commitMs: 0 };
  const forgeFiles = { cli: 0, lib: 0 };
  for (const s of order(spec.key === "a" ? 0 : 1)) {
    if (s === "cli") {
      const r = c.cli(["snapshot", "first"]);
      first.cli = r.ms;
      forgeFiles.cli = parseSnapshotLine(r.stdout).files;
    } else if (s === "lib") {
      const r = await c.lib((ws) => ws.snapshot("first"));
      first.lib = r.ms;
      firstNewBytes = r.value.newBytes;
      forgeFiles.lib = r.value.changes.length;
    } else {
      const r = c.git.snapshot("first");
      first.git = r.ms;
      gitSplit = r;
    }
    log(`${spec.key}: first snapshot ${s} ${formatMs(first[s] as number)}`);
  }
  const gitFiles = c.git.trackedFiles();
  expect(
    forgeFiles.cli === gitFiles && forgeFiles.lib === gitFiles,
    `${T} first snapshot`,
    `forge CLI saw ${forgeFiles.cli} files, library ${forgeFiles.lib}, git ${gitFiles}: not the same tree`,
  );
  const one = (ms: number | undefined) => summarize([ms ?? Number.NaN]);
  timingRow(
    T,
    `first snapshot (${gitFiles.toLocaleString("en-US")} files, ${formatBytes(content.apparent)}), once each`,
    { cli: one(first.cli), lib: one(first.lib), git: one(first.git) },
    "3x",
  );
  row({ tree: T, operation: "  … git's split: add -A · commit", git: `${formatMs(gitSplit.addMs)} · ${formatMs(gitSplit.commitMs)}` });
  sizeRows(T, "after the first snapshot", forgeSize(roots.cli), forgeSize(roots.lib), gitSize(c.git.gitDir), firstNewBytes);

  // Rounds: 10 edited → snapshot; nothing changed → snapshot; 10 edited → status; restore.
  const samples = {
    snap10: { cli: [] as number[], lib: [] as number[], git: [] as number[] },
    snap0: { cli: [] as number[], lib: [] as number[], git: [] as number[] },
    status: { cli: [] as number[], lib: [] as number[], git: [] as number[] },
    restore: { cli: [] as number[], lib: [] as number[], git: [] as number[] },
  };
  const n = CONFIG.changed;
  for (let round = 0; round < CONFIG.rounds; round++) {
    const turn = order(round);

    // Re-snapshot with 10 files changed.
    c.applyEdits(planEdits(rng, roots.git, candidates, n, `r${round}a`));
    await sleep(CONFIG.settleMs);
    for (const s of turn) {
      if (s === "cli") {
        const r = c.cli(["snapshot", `r${round} ten changed`]);
        const counts = parseSnapshotLine(r.stdout);
        expect(counts.modified === n && counts.created === 0 && counts.deleted === 0, `${T} CLI re-snapshot`, r.stdout);
        samples.snap10.cli.push(r.ms);
      } else if (s === "lib") {
        const r = await c.lib((ws) => ws.snapshot(`r${round} ten changed`));
        expect(r.value.changes.length === n, `${T} library re-snapshot`, `${r.value.changes.length} changes`);
        samples.snap10.lib.push(r.ms);
      } else samples.snap10.git.push(c.git.snapshot(`r${round} ten changed`).ms);
    }

    // Re-snapshot with nothing changed.
    for (const s of turn) {
      if (s === "cli") {
        const r = c.cli(["snapshot", `r${round} nothing changed`]);
        const counts = parseSnapshotLine(r.stdout);
        expect(counts.modified + counts.created + counts.deleted === 0, `${T} CLI unchanged snapshot`, r.stdout);
        samples.snap0.cli.push(r.ms);
      } else if (s === "lib") {
        const r = await c.lib((ws) => ws.snapshot(`r${round} nothing changed`));
        expect(r.value.changes.length === 0, `${T} library unchanged snapshot`, `${r.value.changes.length} changes`);
        samples.snap0.lib.push(r.ms);
      } else samples.snap0.git.push(c.git.snapshot(`r${round} nothing changed`).ms);
    }

    // Status after 10 files changed, then restore them.
    const edits = planEdits(rng, roots.git, candidates, n, `r${round}b`);
    const original: Edit[] = edits.map((e) => ({ path: e.path, data: readFileSync(join(roots.git, e.path)) }));
    c.applyEdits(edits);
    await sleep(CONFIG.settleMs);
    for (const s of turn) {
      if (s === "cli") {
        const r = c.cli(["status"]);
        const lines = r.stdout.split("\n").filter((l) => /^[AMDR] {2}/.test(l));
        expect(lines.length === n, `${T} CLI status`, r.stdout.slice(0, 500));
        samples.status.cli.push(r.ms);
      } else if (s === "lib") {
        const r = await c.lib((ws) => ws.status());
        expect(r.value.changes.length === n, `${T} library status`, `${r.value.changes.length} changes`);
        samples.status.lib.push(r.ms);
      } else {
        const r = c.git.status();
        expect(r.stdout.split("\n").filter((l) => l.trim() !== "").length === n, `${T} git status`, r.stdout.slice(0, 500));
        samples.status.git.push(r.ms);
      }
    }
    for (const s of turn) {
      if (s === "cli") {
        const r = c.cli(["restore", "HEAD"]);
        expect(r.stdout.includes(`${n} written, 0 deleted`), `${T} CLI restore`, r.stdout.slice(-300));
        samples.restore.cli.push(r.ms);
      } else if (s === "lib") {
        const r = await c.lib((ws) => ws.restore("HEAD"));
        expect(
          r.value.written.length === n && r.value.deleted.length === 0,
          `${T} library restore`,
          `${r.value.written.length} written, ${r.value.deleted.length} deleted`,
        );
        samples.restore.lib.push(r.ms);
      } else samples.restore.git.push(c.git.restore().ms);
    }
    c.checkContents(original, `${T} restore`);
    log(`${spec.key}: round ${round + 1}/${CONFIG.rounds} done (${formatMs(msSince(t0))} so far)`);
  }
  const sum = (x: { cli: number[]; lib: number[]; git: number[] }) => ({ cli: summarize(x.cli), lib: summarize(x.lib), git: summarize(x.git) });
  timingRow(T, `re-snapshot, ${n} files changed`, sum(samples.snap10), "le");
  timingRow(T, "re-snapshot, nothing changed", sum(samples.snap0), "le");
  timingRow(T, `status, ${n} files changed`, sum(samples.status), "le");
  timingRow(T, `restore ${n} changed files (forge files restore HEAD · git checkout -f HEAD -- .)`, sum(samples.restore));

  const snapshots = 1 + CONFIG.rounds * 4;
  sizeRows(
    T,
    `at the end (forge ${snapshots} snapshots incl. restores' two each · git ${1 + CONFIG.rounds * 2} commits)`,
    forgeSize(roots.cli),
    forgeSize(roots.lib),
    gitSize(c.git.gitDir),
    undefined,
  );
  for (const s of SYSTEMS) rmSync(roots[s], { recursive: true, force: true });
  rmSync(c.git.gitDir, { recursive: true, force: true });
}

// ---------------------------------------------------------------- process start

function processStart(dir: string): void {
  const env = cleanEnv();
  const cases: { label: string; cmd: string; args: string[] }[] = [
    { label: "node -e 0", cmd: NODE, args: ["-e", "0"] },
    { label: "node bin/forge.js --version (loads the whole CLI)", cmd: NODE, args: [FORGE_BIN, "--version"] },
    { label: "git --version", cmd: "git", args: ["--version"] },
  ];
  const samples = cases.map(() => [] as number[]);
  for (let i = 0; i < CONFIG.startSamples + 2; i++) {
    for (const [k, cs] of cases.entries()) {
      const r = runTimed(cs.cmd, cs.args, { cwd: dir, env });
      if (i >= 2) (samples[k] as number[]).push(r.ms); // two warm-up rounds
    }
  }
  const [node, forge, git] = samples.map((s) => summarize(s)) as [Summary, Summary, Summary];
  row({
    tree: "process start",
    operation: `node -e 0 · git --version, median (n=${node.n})`,
    cli: formatMs(node.median),
    git: formatMs(git.median),
    ratio: formatRatio(node.median, git.median),
  });
  row({
    tree: "process start",
    operation: `node bin/forge.js --version (loads the whole CLI), median (n=${forge.n})`,
    cli: formatMs(forge.median),
    git: formatMs(git.median),
    ratio: formatRatio(forge.median, git.median),
  });
  log(`process start: node -e 0 ${formatMs(node.median)}, forge --version ${formatMs(forge.median)}, git --version ${formatMs(git.median)}`);
}

// ---------------------------------------------------------------- main

async function main(): Promise<void> {
  const started = process.hrtime.bigint();
  checkDistFresh();
  if (typeof globalThis.gc !== "function") log("global.gc is not available (run node with --expose-gc); library runs are not preceded by a GC");
  const gitVersion = execFileSync("git", ["--version"], { encoding: "utf8" }).trim();
  const dir = mkdtempSync(join(tmpdir(), "forge-bench-ws-"));
  let generated: GeneratedTree = { files: [], small: [], bytes: 0, folders: 0, counts: { small: 0, larger: 0, big: 0, binary: 0 } };
  try {
    log(`temp dir ${dir}${QUICK ? " (quick mode)" : ""}`);
    processStart(dir);

    // A: generated once, copied for each system.
    const master = join(dir, "a-master");
    mkdirSync(master);
    const t = process.hrtime.bigint();
    const gen = generateTree(master, 42, CONFIG.shape);
    generated = gen;
    log(`a: generated ${gen.files.length} files in ${gen.folders} folders, ${formatBytes(gen.bytes)} in ${formatMs(msSince(t))}`);
    await runTree(dir, {
      label: `A · generated, ${(gen.files.length / 1000).toFixed(0)}k files`,
      key: "a",
      fill: (root) => execFileSync("cp", ["-r", `${master}/.`, root]),
      candidates: () => gen.small,
    });
    rmSync(master, { recursive: true, force: true });
    collectGarbage();

    // B: the project's own node_modules, under a name no ignore rule matches.
    await runTree(dir, {
      label: "B · node_modules copy",
      key: "b",
      fill: (root) => execFileSync("cp", ["-r", join(REPO, "node_modules"), join(root, "modules")]),
      candidates: (root) => listFiles(root, [".js"]).filter((p) => statSync(join(root, p)).size < 256 * 1024),
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const elapsed = msSince(started);

  const cpu = cpus();
  const env = `Node ${process.version}, ${gitVersion}, ${cpu[0]?.model.trim() ?? "unknown CPU"} × ${cpu.length}, ${process.platform}/${process.arch}`;
  const notes = [
    `Forge CLI: \`node bin/forge.js files snapshot|status|restore HEAD --root R\`, cwd R after \`forge init\` (store R/.forge/forge.db, SQLite WAL), timed from spawn to exit. Forge library: openStore + Workspace.open + snapshot()/status()/restore() + close, in the benchmark's process (modules loaded, a GC before each run). Git: \`git --git-dir=S --work-tree=R -c gc.auto=0 …\` with S outside R and a fixed identity; a snapshot is \`add -A\` then \`commit -q --allow-empty\` (two processes, times summed; Forge records a snapshot whether or not anything changed); status \`status --porcelain\`; restore \`checkout -f HEAD -- .\`. S/info/exclude holds Forge's default ignores (.forge/, node_modules/); the file counts of the first snapshots are checked to be equal.`,
    `Each system has its own copy of each tree (cp -r), so no stat cache, index or page-cache state is shared; the OS page cache is warm for all (the copies were just written). After every batch of edits the run waits ${CONFIG.settleMs} ms, so neither Forge's stat cache nor git's index treats the edited files as racy.`,
    `Generated tree A: ${generated.files.length.toLocaleString("en-US")} files in ${generated.folders} folders, ${formatBytes(generated.bytes)}: ${generated.counts.small} small text files (log-normal sizes, median ≈ 1.3 KB, at most 32 KB), ${generated.counts.larger} larger text files (40–400 KB), ${generated.counts.big} text files of 1.2–2 MB (chunked by Forge), ${generated.counts.binary} binary files (8–256 KB, incompressible). Tree B: this project's node_modules copied to R/modules.`,
    `Rounds (${CONFIG.rounds}, the order of the three systems rotating each round): edit ${CONFIG.changed} files (a line inserted in the middle, one appended) → re-snapshot; re-snapshot with nothing changed; edit ${CONFIG.changed} other files → status; restore (Forge's restore first takes a safety snapshot of the edits, then writes the files, then records the result as a snapshot: three steps where git's checkout does one). The restored contents are checked in every copy.`,
    "Bytes stored: Forge's forge.db (+ -wal) after PRAGMA wal_checkpoint(TRUNCATE), objects deflated when that saves ≥ 1/8; git's loose objects (zlib), Σ file sizes; the du row counts allocated blocks (4 KiB per small loose object) and includes the index and Forge's stat cache.",
    "The machine is noisy (±30 % between runs): read ratios near 1× as a tie.",
  ];
  const out = [
    "# Forge workspace benchmark",
    "",
    `Command: \`${COMMAND}\`${QUICK ? " --quick (QUICK MODE: smaller tree, fewer rounds)" : ""}`,
    "",
    `Run: ${new Date().toISOString()} · ${env} · total ${formatMs(elapsed)}`,
    "",
    renderTable(),
    "",
    "Spread of the repeated operations (min – max):",
    "",
    "| tree | operation | forge CLI | forge library | git |",
    "| --- | --- | --- | --- | --- |",
    ...spread,
    "",
    ...notes.map((n) => `- ${n}`),
    "",
  ].join("\n");
  publish("workspace", out, { quick: QUICK, log });
}

runMain(main);
