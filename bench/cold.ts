// Cold-paths benchmark (issue 18): the `forge` CLI as a user's shell or an agent host runs it —
// a fresh `node bin/forge.js …` process from the checkout for every call — each path side by
// side with its anchor in the same run, the two alternating, medians:
//
//   `forge --version`                                 vs `node -e 0`
//   `forge hook post-edit` (a PostToolUse payload)     vs `git status --porcelain`, 10,000 files, one just edited
//   `forge files status`, 10 files changed             vs `git status --porcelain`
//   `forge files snapshot` after 10 files changed      vs `git add -A` + `git commit -q`
//   `forge files restore ID` of a 10-file change        vs `git checkout -q SHA` of the same change
//   `forge init` + `forge files snapshot`, 10,000 files vs `git init -q` + `git add -A`
//   the first snapshot, status and restore again on 100,000 files (no target; fewer repetitions)
//
//   npm run bench:cold
//   (= tsc -p tsconfig.bench.json && node --expose-gc build/bench/cold.js)
//   npm run bench:cold -- --no-100k    the 10,000-file part only
//   npm run bench:cold -- --quick      a 2,000-file tree, fewer repetitions, no 100,000-file part
//                                      (for trying the harness); bench/results/cold.md left alone
//   … --quick --big-folders 30         the big-tree part too, on 30 folders (3,000 files)
//   … --stale-dist-ok                  measure dist/ even when a file of src/ is newer (noted in the report)
//
// The tree is the one ../shared/checks/cold-paths generates: 100 folders × 100 files of 1–8 KB
// of text (1,000 folders for 100,000 files). Forge and git each work in their own copy, so
// neither one's index, stat cache or writes disturb the other: Forge's copy is a git work tree
// committed once at the start (as a user's repository is: Forge then takes git's tracked files
// from git's index), in which no git command runs afterwards; git's copy is its own repository.
// Every edit is made to both copies, byte for byte the same.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkDistFresh, distStamp, FORGE_BIN, load, machine, sourcesNewerThanDist } from "./lib/cli.js";
import { publish, runMain } from "./lib/report.js";
import { formatMs, formatRatio, msSince, summarize, type Summary } from "./lib/stats.js";
import { cleanEnv } from "./lib/workspace-fixtures.js";

const argv = process.argv.slice(2);
const QUICK = argv.includes("--quick");
const flag = (name: string): number | undefined => {
  const i = argv.indexOf(name);
  return i >= 0 ? Number(argv[i + 1]) : undefined;
};
/** The big tree's folders: 1,000 (100,000 files); `--big-folders N` for trying that part of the harness on a smaller tree (with --quick too). */
const BIG_FOLDERS = flag("--big-folders") ?? 1000;
const BIG = !argv.includes("--no-100k") && (!QUICK || flag("--big-folders") !== undefined);
const CONFIG = {
  folders: QUICK ? 20 : 100,
  bigFolders: BIG_FOLDERS,
  perFolder: 100,
  changed: 10,
  versionReps: QUICK ? 5 : 15,
  hookReps: QUICK ? 3 : 11,
  statusReps: QUICK ? 3 : 11,
  snapshotReps: QUICK ? 3 : 7,
  restoreReps: QUICK ? 3 : 7,
  firstReps: QUICK ? 1 : 3,
  bigStatusReps: 3,
  bigRestoreReps: 3,
  bigFirstReps: 1,
  /** Wait after writing files so that neither Forge's stat cache nor git's index sees them as racy (both use a ~1 s rule). */
  settleMs: 1100,
} as const;
const COMMAND = `npm run bench:cold${argv.length > 0 ? ` -- ${argv.join(" ")}` : ""}`;

const NODE = process.execPath;
/** As ../shared/checks/cold-paths runs them: no FORGE_* or GIT_* from this process, no colour. */
const FORGE_ENV = cleanEnv();
/** The hook never fails its host; strict, a failure is an exit code this benchmark sees. */
const HOOK_ENV = cleanEnv({ FORGE_HOOK_STRICT: "1" });
/** The check's git settings, and no automatic gc or maintenance (which would go on in the background, on both cores, during the measurements). */
const GIT_ENV = cleanEnv({
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_AUTHOR_NAME: "c",
  GIT_AUTHOR_EMAIL: "c@example.invalid",
  GIT_COMMITTER_NAME: "c",
  GIT_COMMITTER_EMAIL: "c@example.invalid",
  GIT_CONFIG_COUNT: "2",
  GIT_CONFIG_KEY_0: "gc.auto",
  GIT_CONFIG_VALUE_0: "0",
  GIT_CONFIG_KEY_1: "maintenance.auto",
  GIT_CONFIG_VALUE_1: "false",
});

const log = (msg: string): void => {
  process.stderr.write(`[bench:cold] ${msg}\n`);
};
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const count = (n: number): string => n.toLocaleString("en-US");

// ---------------------------------------------------------------- processes

interface Ran {
  readonly ms: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command to completion, timed from spawn to exit; a non-zero exit throws. */
function run(cmd: string, args: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv; input?: string }): Ran {
  const start = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { cwd: options.cwd, env: options.env, input: options.input, encoding: "utf8", maxBuffer: 1 << 28 });
  const ms = msSince(start);
  if (r.error) throw r.error;
  if (r.status !== 0) {
    const shown = [cmd === NODE ? "node" : cmd, ...args].join(" ").replace(FORGE_BIN, "bin/forge.js");
    throw new Error(`${shown} (in ${options.cwd}) exited ${r.status ?? r.signal}: ${(r.stderr || r.stdout).trim().slice(0, 1500)}`);
  }
  return { ms, stdout: r.stdout, stderr: r.stderr };
}

const forge = (cwd: string, args: readonly string[]): Ran => run(NODE, [FORGE_BIN, ...args], { cwd, env: FORGE_ENV });
const git = (cwd: string, args: readonly string[]): Ran => run("git", args, { cwd, env: GIT_ENV });
const nodeStart = (cwd: string): number => run(NODE, ["-e", "0"], { cwd, env: FORGE_ENV }).ms;

/**
 * Runs the contestants `warmup + reps` times, the order rotating each round (each goes first in
 * turn), `before` ahead of every round (untimed); the summaries of the last `reps` rounds.
 */
async function interleave(
  reps: number,
  contestants: readonly ((round: number) => number)[],
  options: { warmup?: number; before?: (round: number) => void | Promise<void> } = {},
): Promise<Summary[]> {
  const warmup = options.warmup ?? 1;
  const samples = contestants.map(() => [] as number[]);
  for (let round = 0; round < warmup + reps; round++) {
    await options.before?.(round);
    for (let k = 0; k < contestants.length; k++) {
      const i = (round + k) % contestants.length;
      const ms = (contestants[i] as (round: number) => number)(round);
      if (round >= warmup) (samples[i] as number[]).push(ms);
    }
  }
  return samples.map((s) => summarize(s));
}

// ---------------------------------------------------------------- the tree and its edits

/** ../shared/checks/cold-paths's tree: `folders` × 100 files of 1–8 KB of text. */
function makeTree(dir: string, folders: number): number {
  for (let d = 0; d < folders; d++) {
    mkdirSync(join(dir, `pkg${d}`), { recursive: true });
    for (let f = 0; f < CONFIG.perFolder; f++) {
      const n = 1024 + (((d * 100 + f) * 7919) % 7168);
      const line = `// module ${d}/${f}: lorem ipsum dolor sit amet ${d * f}\n`;
      writeFileSync(join(dir, `pkg${d}`, `f${f}.ts`), line.repeat(Math.ceil(n / line.length)).slice(0, n));
    }
  }
  return folders * CONFIG.perFolder;
}

/** cp -a of `from`'s entries into `to` (created), with or without its .git. */
function copyTree(from: string, to: string, withGit: boolean): void {
  mkdirSync(to, { recursive: true });
  const names = readdirSync(from).filter((n) => withGit || n !== ".git");
  execFileSync("cp", ["-a", ...names.map((n) => join(from, n)), `${to}/`]);
}

interface Edit {
  readonly path: string;
  /** The file's bytes after the edit, and before it. */
  readonly data: Buffer;
  readonly before: Buffer;
}

let editsMade = 0;

/** The next edit (a line inserted in the middle of a file), planned from the file's bytes in `root`; the next `k` edits touch `k` different files. */
function planEdit(root: string, folders: number): Edit {
  const n = editsMade++;
  const path = `pkg${n % folders}/f${(n * 37) % CONFIG.perFolder}.ts`;
  const before = readFileSync(join(root, path));
  const at = before.indexOf(10, before.length >> 1) + 1 || before.length;
  return { path, before, data: Buffer.concat([before.subarray(0, at), Buffer.from(`// edited ${n}\n`), before.subarray(at)]) };
}

function applyEdit(root: string, e: Edit): void {
  writeFileSync(join(root, e.path), e.data);
}

/** `k` edits to different files, made in both copies. */
function editBoth(p: Pair, k: number): Edit[] {
  const edits = Array.from({ length: k }, () => planEdit(p.forge, p.folders));
  for (const e of edits) {
    applyEdit(p.forge, e);
    applyEdit(p.git, e);
  }
  return edits;
}

function expect(ok: boolean, what: string, detail: string): void {
  if (!ok) throw new Error(`${what}: ${detail.slice(0, 1500)}`);
}

/** "…: 10000 files; 0 created, 10 modified, 0 deleted; …" → the counts. */
function snapshotCounts(out: string): { files: number; created: number; modified: number; deleted: number } {
  const m = /: (\d+) files; (\d+) created, (\d+) modified, (\d+) deleted/.exec(out);
  if (!m) throw new Error(`cannot read forge's snapshot output: ${out.slice(0, 300)}`);
  return { files: Number(m[1]), created: Number(m[2]), modified: Number(m[3]), deleted: Number(m[4]) };
}

const statusLines = (out: string): string[] => out.split("\n").filter((l) => /^[AMDR] {2}/.test(l));
const gitLines = (out: string): string[] => out.split("\n").filter((l) => l.trim() !== "");

// ---------------------------------------------------------------- the report

interface Row {
  path: string;
  ratio: string;
  forge: string;
  anchor: string;
  target: string;
  met: string;
}

const rows: Row[] = [];
const spread: string[] = [];
const notes: string[] = [];

function renderTable(): string {
  const header: Row = { path: "path · anchor", ratio: "ratio (Forge / anchor)", forge: "Forge", anchor: "anchor", target: "target", met: "met?" };
  const cols = Object.keys(header) as (keyof Row)[];
  const line = (r: Row): string => `| ${cols.map((c) => r[c].replace(/\|/g, "\\|")).join(" | ")} |`;
  return [line(header), `| ${cols.map(() => "---").join(" | ")} |`, ...rows.map(line)].join("\n");
}

const range = (s: Summary): string => (s.n > 1 ? `${formatMs(s.min)} – ${formatMs(s.max)}` : formatMs(s.median));

/** A row of medians; `limit` is the target's bound in ms (met when Forge's median is at most it). */
function timingRow(path: string, f: Summary, a: Summary, target?: { text: string; limit: number }, node?: Summary): void {
  const n = f.n > 1 ? `, median (n=${f.n})` : f.n === 1 ? ", once each" : "";
  rows.push({
    path: `${path}${n}`,
    ratio: formatRatio(f.median, a.median),
    forge: formatMs(f.median),
    anchor: formatMs(a.median),
    target: target ? `${target.text} (= ${formatMs(target.limit)})` : "—",
    met: target ? (f.median <= target.limit ? "yes" : "NO") : "—",
  });
  spread.push(`${path.replace(/ · anchor.*$/, "")}: Forge ${range(f)}; anchor ${range(a)}${node ? `; node -e 0 ${range(node)}` : ""}`);
  log(`${path}: Forge ${formatMs(f.median)}, anchor ${formatMs(a.median)} (${formatRatio(f.median, a.median)})`);
}

// ---------------------------------------------------------------- the paths

/** Forge's copy (a git work tree with .forge/) and git's, holding the same files. */
interface Pair {
  readonly forge: string;
  readonly git: string;
  readonly folders: number;
  readonly files: number;
}

/**
 * First snapshots, `reps` times on fresh copies of `base`: Forge's (`base` with its .git: a
 * committed repository) `forge init` + `forge files snapshot`; git's (no .git) `git init -q` +
 * `git add -A`. The last round's copies are kept as the pair for the other paths (git's gets
 * its first commit, untimed).
 */
async function firstSnapshots(
  work: string,
  base: string,
  folders: number,
  files: number,
  reps: number,
  key: string,
): Promise<{ pair: Pair; forge: Summary; git: Summary }> {
  const samples = { forge: [] as number[], git: [] as number[] };
  const split = { forgeInit: [] as number[], gitInit: [] as number[] };
  let pair: Pair | undefined;
  for (let r = 0; r < reps; r++) {
    const f = join(work, `${key}-forge-${r}`);
    const g = join(work, `${key}-git-${r}`);
    copyTree(base, f, true);
    copyTree(base, g, false);
    const sides = [
      () => {
        const init = forge(f, ["init"]);
        const snap = forge(f, ["files", "snapshot", "first"]);
        const c = snapshotCounts(snap.stdout);
        expect(c.files === files && c.created === files, "forge first snapshot", snap.stdout);
        samples.forge.push(init.ms + snap.ms);
        split.forgeInit.push(init.ms);
      },
      () => {
        const init = git(g, ["init", "-q"]);
        const add = git(g, ["add", "-A"]);
        samples.git.push(init.ms + add.ms);
        split.gitInit.push(init.ms);
      },
    ];
    for (const side of r % 2 === 0 ? sides : [...sides].reverse()) side();
    const tracked = git(g, ["ls-files", "-z"])
      .stdout.split("\0")
      .filter((s) => s !== "").length;
    expect(tracked === files, "git first snapshot", `git add -A staged ${tracked} files, not ${files}`);
    log(`${key}: first snapshot ${r + 1}/${reps}: Forge ${formatMs(samples.forge.at(-1) as number)}, git ${formatMs(samples.git.at(-1) as number)}`);
    if (r < reps - 1) {
      rmSync(f, { recursive: true, force: true });
      rmSync(g, { recursive: true, force: true });
    } else {
      git(g, ["commit", "-q", "-m", "first"]);
      pair = { forge: f, git: g, folders, files };
    }
  }
  notes.push(
    `First snapshot of ${count(files)} files: of Forge's time, \`forge init\` took ${formatMs(summarize(split.forgeInit).median)} (median); of git's, \`git init\` ${formatMs(summarize(split.gitInit).median)}.`,
  );
  return { pair: pair as Pair, forge: summarize(samples.forge), git: summarize(samples.git) };
}

/** The copies' stat caches and indexes brought up to date (untimed): each side's second look at an unchanged tree. */
async function settle(p: Pair): Promise<void> {
  await sleep(CONFIG.settleMs);
  for (let i = 0; i < 2; i++) {
    git(p.git, ["status", "--porcelain"]);
    forge(p.forge, ["files", "status"]);
  }
}

async function versionRow(cwd: string): Promise<void> {
  const [f, n] = (await interleave(CONFIG.versionReps, [() => forge(cwd, ["--version"]).ms, () => nodeStart(cwd)], { warmup: 2 })) as [Summary, Summary];
  timingRow("`forge --version` · anchor `node -e 0`", f, n, { text: "≤ node + 15 ms", limit: n.median + 15 });
}

/** One round of a hook row: the change made in a copy, the hook's payload for Forge's, what git's records after its status (untimed). */
interface HookRound {
  readonly apply: (root: string) => void;
  readonly payload: string;
  readonly record: readonly (readonly string[])[];
}

/**
 * A hook row: each round the change is made in both copies; Forge's runs `forge hook
 * post-edit` with the payload (as Claude Code's PostToolUse runs it), git's runs `git status
 * --porcelain` (which must list one path) and then records the change untimed, so that each
 * round has one change. Every hook run must have snapshotted its change.
 */
async function hookRowOf(p: Pair, label: string, what: string, round: (n: number) => HookRound, hook: readonly string[] = POST_EDIT): Promise<void> {
  let r = round(0);
  const [f, g, n] = (await interleave(
    CONFIG.hookReps,
    [
      () => {
        r.apply(p.forge);
        return run(NODE, [FORGE_BIN, ...hook], { cwd: p.forge, env: HOOK_ENV, input: r.payload }).ms;
      },
      () => {
        r.apply(p.git);
        const status = git(p.git, ["status", "--porcelain"]);
        expect(gitLines(status.stdout).length === 1, `git status after ${what}`, status.stdout);
        for (const args of r.record) git(p.git, [...args]);
        return status.ms;
      },
      () => nodeStart(p.forge),
    ],
    {
      before: (k) => {
        if (k > 0) r = round(k);
      },
    },
  )) as [Summary, Summary, Summary];
  const left = JSON.parse(forge(p.forge, ["--json", "files", "status"]).stdout) as { changes: unknown[] };
  expect(left.changes.length === 0, `forge ${hook.join(" ")}`, `${left.changes.length} change(s) left unsnapshotted after the hook runs`);
  timingRow(
    `${label}, ${count(p.files)} files · anchor \`git status --porcelain\``,
    f,
    g,
    { text: "≤ git + node + 30 ms", limit: g.median + n.median + 30 },
    n,
  );
}

/** The legacy hook the rows run, and the capture hook `forge enable` writes for Claude Code's PostToolUse. */
const POST_EDIT = ["hook", "post-edit"];
const CAPTURE_TOOL = ["hook", "tool", "--host", "claude-code"];

const hookPayload = (p: Pair, tool: string, input: object, response: object): string =>
  JSON.stringify({ session_id: "bench-cold", cwd: p.forge, hook_event_name: "PostToolUse", tool_name: tool, tool_input: input, tool_response: response });

/** A round of one file edited (a line inserted), as an Edit tool's PostToolUse names it. */
function editRound(p: Pair): HookRound {
  const e = planEdit(p.forge, p.folders);
  const file = join(p.forge, e.path);
  return {
    apply: (root) => applyEdit(root, e),
    payload: hookPayload(p, "Edit", { file_path: file, old_string: "lorem ipsum", new_string: "lorem ipsum (edited)" }, { filePath: file, success: true }),
    record: [["commit", "-q", "-a", "-m", "hook"]],
  };
}

/** A hook run after one file was edited (a line inserted). */
function hookRow(p: Pair): Promise<void> {
  return hookRowOf(p, "hook: `forge hook post-edit` (a PostToolUse payload naming the file edited just before)", "one edit", () => editRound(p));
}

/**
 * The hook row again with `forge watch --files` running in Forge's copy: each hook asks it
 * which files changed since the last snapshot's walk (watch-hint.ts) and lstat's only those.
 * Its word counts for a walk that began two seconds after it set its watches: the row's
 * untimed first round records an edit after that.
 */
async function watchedHookRow(p: Pair): Promise<void> {
  await withWatcher(p, async () => {
    await hookRowOf(
      p,
      "hook with `forge watch --files` running: `forge hook post-edit` (the same payload; the watcher names the files changed)",
      "one edit",
      () => editRound(p),
    );
    // The row measured hooks that took the watcher's word: one more, untimed, says so.
    const r = editRound(p);
    r.apply(p.forge);
    r.apply(p.git);
    const traced = run(NODE, [FORGE_BIN, "hook", "post-edit"], { cwd: p.forge, env: { ...HOOK_ENV, FORGE_TRACE: "1" }, input: r.payload });
    expect(WATCHER_USED.test(traced.stderr), "forge hook post-edit with forge watch running", "it did not take the watcher's paths");
    for (const args of r.record) git(p.git, [...args]);
  });
}

/**
 * The capture hook `forge enable` writes for Claude Code's PostToolUse (`forge hook tool --host
 * claude-code`), alone and with `forge watch --files` running, which it hands its work to
 * (operations/hooks/served.ts): as with `forge mcp`, the server of a host session.
 */
async function capturedHookRows(p: Pair): Promise<void> {
  await hookRowOf(
    p,
    "capture hook: `forge hook tool --host claude-code` (the same payload), no Forge process running",
    "one edit",
    () => editRound(p),
    CAPTURE_TOOL,
  );
  await withWatcher(p, async () => {
    await hookRowOf(
      p,
      "capture hook with `forge watch --files` running: `forge hook tool --host claude-code` (the same payload; the watcher runs the hook)",
      "one edit",
      () => editRound(p),
      CAPTURE_TOOL,
    );
    // The row measured hooks the watcher ran: one more, untimed, says so.
    const r = editRound(p);
    r.apply(p.forge);
    r.apply(p.git);
    const traced = run(NODE, [FORGE_BIN, ...CAPTURE_TOOL], { cwd: p.forge, env: { ...HOOK_ENV, FORGE_TRACE: "1" }, input: r.payload });
    expect(/hook: served by pid/.test(traced.stderr), "forge hook tool with forge watch running", "the watcher did not run it");
    for (const args of r.record) git(p.git, [...args]);
  });
}

/** The status row again with `forge watch --files` running in Forge's copy, after an edit recorded once its word counts. */
async function watchedStatusRow(p: Pair, reps: number): Promise<void> {
  await withWatcher(p, async () => {
    const r = editRound(p);
    r.apply(p.forge);
    r.apply(p.git);
    forge(p.forge, ["files", "snapshot", "watched"]);
    for (const args of r.record) git(p.git, [...args]);
    await statusRow(p, reps, false, "with `forge watch --files` running");
  });
}

const WATCHER_USED = /watch: changed paths from the watcher/;

/**
 * Runs `fn` with `forge watch --files` running in Forge's copy (it takes no snapshot of its
 * own: `--quiet-period 1h --rescan off`), from two and a half seconds after it started: the
 * first walk its word counts for begins two seconds after its watches were set.
 */
async function withWatcher(p: Pair, fn: () => Promise<void>): Promise<void> {
  const args = ["watch", "--files", "--every", "1h", "--quiet-period", "1h", "--rescan", "off", "--json"];
  const child = spawn(NODE, [FORGE_BIN, ...args], { cwd: p.forge, env: HOOK_ENV, stdio: ["ignore", "pipe", "pipe"] });
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  try {
    await new Promise<void>((resolve, reject) => {
      let text = "";
      child.stdout.setEncoding("utf8");
      child.stdout.on("data", (d: string) => {
        text += d;
        if (text.includes('"event":"started"')) resolve();
      });
      void exited.then((code) => reject(new Error(`forge watch exited (${code}) before it started`)));
    });
    await sleep(2500);
    await fn();
  } finally {
    child.kill("SIGTERM");
    await exited;
  }
}

/** A hook run after a host's Write of a new file (in a folder the tree has, each round another). */
function newFileHookRow(p: Pair): Promise<void> {
  return hookRowOf(p, "hook after a new file: `forge hook post-edit` (a PostToolUse payload of a Write that created the file)", "one new file", (n) => {
    const data = Buffer.from(`// a new module ${n}\n${"export const x = 1;\n".repeat(20)}`);
    const e: Edit = { path: `pkg${(n * 7) % p.folders}/new-${n}.ts`, data, before: Buffer.alloc(0) };
    const file = join(p.forge, e.path);
    return {
      apply: (root) => applyEdit(root, e),
      payload: hookPayload(p, "Write", { file_path: file, content: data.toString() }, { filePath: file, type: "create" }),
      record: [
        ["add", "-A"],
        ["commit", "-q", "-m", "hook"],
      ],
    };
  });
}

/** A hook run after a shell command deleted a file: one made and recorded by both sides untimed before the round (no edit row touches it), each round in another folder. */
function deletedFileHookRow(p: Pair): Promise<void> {
  return hookRowOf(p, "hook after a file deleted: `forge hook post-edit` (a PostToolUse payload of a Bash `rm`)", "one file deleted", (n) => {
    const path = `pkg${(n * 11 + 3) % p.folders}/gone-${n}.ts`;
    for (const root of [p.forge, p.git]) writeFileSync(join(root, path), `// to be deleted ${n}\n`);
    forge(p.forge, ["files", "snapshot", "before rm"]);
    git(p.git, ["add", "-A"]);
    git(p.git, ["commit", "-q", "-m", "before rm"]);
    return {
      apply: (root) => rmSync(join(root, path)),
      payload: hookPayload(p, "Bash", { command: `rm ${path}` }, { stdout: "", stderr: "", interrupted: false }),
      record: [["commit", "-q", "-a", "-m", "hook"]],
    };
  });
}

/** Status with 10 files changed (and settled), then both record the change (untimed). */
async function statusRow(p: Pair, reps: number, target: boolean, running?: string): Promise<void> {
  const k = CONFIG.changed;
  editBoth(p, k);
  await sleep(CONFIG.settleMs);
  if (running !== undefined) {
    // The row measures statuses that take the watcher's word: one, untimed, says so.
    const traced = run(NODE, [FORGE_BIN, "files", "status"], { cwd: p.forge, env: { ...HOOK_ENV, FORGE_TRACE: "1" } });
    expect(WATCHER_USED.test(traced.stderr), `forge files status ${running}`, "it did not take the watcher's paths");
  }
  const [f, g, n] = (await interleave(reps, [
    () => {
      const r = forge(p.forge, ["files", "status"]);
      expect(statusLines(r.stdout).length === k, "forge files status", r.stdout);
      return r.ms;
    },
    () => {
      const r = git(p.git, ["status", "--porcelain"]);
      expect(gitLines(r.stdout).length === k, "git status", r.stdout);
      return r.ms;
    },
    () => nodeStart(p.forge),
  ])) as [Summary, Summary, Summary];
  timingRow(
    `\`forge files status\`${running === undefined ? "" : ` ${running}`}, ${count(p.files)} files, ${k} changed · anchor \`git status --porcelain\``,
    f,
    g,
    target ? { text: "≤ git + node + 30 ms", limit: g.median + n.median + 30 } : undefined,
    n,
  );
  forge(p.forge, ["files", "snapshot", "after status"]);
  git(p.git, ["add", "-A"]);
  git(p.git, ["commit", "-q", "-m", "after status"]);
}

/** Each round: 10 files edited in both copies, settled, then Forge's snapshot and git's add + commit, in alternating order. */
async function resnapshotRow(p: Pair): Promise<void> {
  const k = CONFIG.changed;
  const [f, g] = (await interleave(
    CONFIG.snapshotReps,
    [
      (round) => {
        const r = forge(p.forge, ["files", "snapshot", `round ${round}`]);
        const c = snapshotCounts(r.stdout);
        expect(c.modified === k && c.created === 0 && c.deleted === 0, "forge files snapshot", r.stdout);
        return r.ms;
      },
      (round) => git(p.git, ["add", "-A"]).ms + git(p.git, ["commit", "-q", "-m", `round ${round}`]).ms,
    ],
    {
      before: async () => {
        editBoth(p, k);
        await sleep(CONFIG.settleMs);
      },
    },
  )) as [Summary, Summary];
  timingRow(`re-snapshot after ${k} changed files: \`forge files snapshot\` · anchor \`git add -A\` + \`git commit -q\``, f, g, {
    text: "≤ git's",
    limit: g.median,
  });
}

/**
 * States A (now) and B (10 files changed), recorded by both; then rounds restore B → A, A → B, …
 * (`forge files restore ID`, `git checkout -q SHA`), settled before each, the files checked after.
 */
async function restoreRow(p: Pair, reps: number, target: boolean): Promise<void> {
  const k = CONFIG.changed;
  const idOf = (out: string): string => (JSON.parse(out) as { snapshot: { id: string } }).snapshot.id;
  // Nothing changed since the last snapshot: this answers with it (A) and records nothing.
  const aForge = idOf(forge(p.forge, ["--json", "files", "snapshot", "A"]).stdout);
  const aGit = git(p.git, ["rev-parse", "HEAD"]).stdout.trim();
  const edits = editBoth(p, k);
  const bForge = idOf(forge(p.forge, ["--json", "files", "snapshot", "B"]).stdout);
  git(p.git, ["commit", "-q", "-a", "-m", "B"]);
  const bGit = git(p.git, ["rev-parse", "HEAD"]).stdout.trim();
  const states = [
    { forge: aForge, git: aGit, files: edits.map((e) => ({ path: e.path, data: e.before })) },
    { forge: bForge, git: bGit, files: edits.map((e) => ({ path: e.path, data: e.data })) },
  ] as const;
  const state = (round: number) => states[round % 2] as (typeof states)[number];
  const verify = (round: number): void => {
    for (const { path, data } of state(round).files) {
      for (const root of [p.forge, p.git]) expect(readFileSync(join(root, path)).equals(data), "restore", `${root}/${path} does not hold the restored bytes`);
    }
  };
  const [f, g] = (await interleave(
    reps,
    [
      (round) => {
        const r = forge(p.forge, ["files", "restore", state(round).forge]);
        expect(r.stdout.includes(`${k} written, 0 deleted`), "forge files restore", r.stdout);
        return r.ms;
      },
      (round) => git(p.git, ["checkout", "-q", state(round).git]).ms,
    ],
    {
      before: async (round) => {
        if (round > 0) verify(round - 1);
        await sleep(CONFIG.settleMs);
      },
    },
  )) as [Summary, Summary];
  verify(reps); // the last round (after one warm-up round: round index `reps`)
  timingRow(
    `restore of a ${k}-file change, ${count(p.files)} files: \`forge files restore ID\` · anchor \`git checkout -q SHA\``,
    f,
    g,
    target ? { text: "≤ git's", limit: g.median } : undefined,
  );
}

// ---------------------------------------------------------------- main

/** A tree of `folders` × 100 files, committed once (the .git Forge's copies carry). */
function makeBase(work: string, folders: number, key: string): { base: string; files: number } {
  const base = join(work, `${key}-base`);
  mkdirSync(base);
  const t = process.hrtime.bigint();
  const files = makeTree(base, folders);
  git(base, ["init", "-q"]);
  git(base, ["add", "-A"]);
  git(base, ["commit", "-q", "-m", "base"]);
  log(`${key}: ${count(files)} files generated and committed in ${formatMs(msSince(t))}`);
  return { base, files };
}

async function main(): Promise<void> {
  const started = process.hrtime.bigint();
  try {
    checkDistFresh();
  } catch (e) {
    // A shared checkout: src/ may be mid-change. Measuring dist/ as built is then a choice to make.
    if (!argv.includes("--stale-dist-ok")) throw e;
    const newer = sourcesNewerThanDist();
    notes.push(
      `**dist/ was older than src/ at the start** (run with --stale-dist-ok): ${newer.length > 0 ? `${newer.slice(0, 8).join(", ")}${newer.length > 8 ? ` and ${newer.length - 8} more` : ""} changed since the build, not measured` : (e as Error).message}.`,
    );
  }
  const dist = distStamp();
  const loadBefore = load();
  const work = mkdtempSync(join(tmpdir(), "forge-bench-cold-"));
  log(`temp dir ${work}${QUICK ? " (quick mode)" : ""}; load average ${loadBefore}`);
  try {
    // Warm the page cache for node, the CLI's bundle and git.
    for (let i = 0; i < 2; i++) {
      nodeStart(work);
      forge(work, ["files", "--help"]);
      git(work, ["--version"]);
    }

    const small = makeBase(work, CONFIG.folders, "10k");
    const first = await firstSnapshots(work, small.base, CONFIG.folders, small.files, CONFIG.firstReps, "10k");
    const p = first.pair;
    await settle(p);
    await versionRow(work);
    await hookRow(p);
    await watchedHookRow(p);
    await capturedHookRows(p);
    await newFileHookRow(p);
    await deletedFileHookRow(p);
    await statusRow(p, CONFIG.statusReps, true);
    await resnapshotRow(p);
    await restoreRow(p, CONFIG.restoreReps, true);
    timingRow(
      `first snapshot of ${count(small.files)} files: \`forge init\` + \`forge files snapshot\` · anchor \`git init -q\` + \`git add -A\``,
      first.forge,
      first.git,
      { text: "≤ ⅓ of git's", limit: first.git.median / 3 },
    );
    for (const dir of [small.base, p.forge, p.git]) rmSync(dir, { recursive: true, force: true });

    if (BIG) {
      const big = makeBase(work, CONFIG.bigFolders, "100k");
      const bigFirst = await firstSnapshots(work, big.base, CONFIG.bigFolders, big.files, CONFIG.bigFirstReps, "100k");
      rmSync(big.base, { recursive: true, force: true });
      const q = bigFirst.pair;
      await settle(q);
      timingRow(
        `first snapshot of ${count(big.files)} files: \`forge init\` + \`forge files snapshot\` · anchor \`git init -q\` + \`git add -A\``,
        bigFirst.forge,
        bigFirst.git,
      );
      await statusRow(q, CONFIG.bigStatusReps, false);
      await watchedStatusRow(q, CONFIG.bigStatusReps);
      await restoreRow(q, CONFIG.bigRestoreReps, false);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const elapsed = msSince(started);
  const distAfter = distStamp();
  if (distAfter !== dist) notes.push(`**dist/ was rebuilt during the run** (${dist} → ${distAfter}): rows measured after that ran other code.`);

  const out = [
    "# Cold paths benchmark",
    "",
    `Command: \`${COMMAND}\`${QUICK ? " (QUICK MODE: 2,000 files, fewer repetitions)" : ""}`,
    "",
    `Run: ${new Date().toISOString()} · ${machine({ git: true })} · load average ${loadBefore} at the start, ${load()} at the end · total ${formatMs(elapsed)}`,
    "",
    renderTable(),
    "",
    "Spread (min – max):",
    "",
    ...spread.map((s) => `- ${s}`),
    "",
    ...[
      `Every Forge figure is a whole \`node bin/forge.js …\` process from this checkout (${dist}), spawn to exit, run in the workspace (its store found through \`forge init\`'s .forge/); every anchor a whole process too. Forge and its anchor alternate (each goes first in turn; \`node -e 0\` rotates with them where a target counts it), after one untimed round; medians. A target's bound is computed from the same run's medians.`,
      `Tree: ../shared/checks/cold-paths's generator, ${CONFIG.folders} folders × ${CONFIG.perFolder} files of 1–8 KB of text (${BIG ? `and ${CONFIG.bigFolders} folders × ${CONFIG.perFolder} for the big-tree rows` : "no big-tree rows in this run"}). Forge works in its own copy, a git work tree committed once before \`forge init\` (so it takes the tracked files from git's index, as in a user's repository), where no git command runs afterwards; git in its own repository. Every edit (a line inserted in the middle of a file) is made to both copies.`,
      `Hook: Claude Code's PostToolUse JSON on stdin (tool Edit, file_path the edited file), the file written just before the process starts; \`forge hook post-edit\` records it as the agent's edit and snapshots the workspace (FORGE_HOOK_STRICT=1 so a failure would show; after the rounds nothing is left unsnapshotted). Git's side writes the same bytes to the same file, runs \`git status --porcelain\` (which must list one file) and then commits it untimed, so each round has one file changed. The hook after a new file: the same with tool Write and a file created (~430 bytes, each round in another folder); git's side adds and commits it untimed. The hook after a file deleted: a Bash \`rm\` of a file both sides made and recorded untimed just before (each round in another folder); git's side deletes the same file, runs status (one line) and commits the deletion untimed. The hook with \`forge watch --files\` running: the first hook row again while a watcher (\`--quiet-period 1h --rescan off\`: it takes no snapshot of its own) follows Forge's copy; each hook asks it over its socket which files changed since the last snapshot's walk and lstat's only those (no watcher: every file). On the big tree, the status row again with such a watcher running, after an edit recorded two and a half seconds after it started (the first walk its word counts for); each such row checks once, untimed, that the command took the watcher's paths. The capture hook rows: the first hook row again with the hook \`forge enable\` writes for Claude Code's PostToolUse (\`forge hook tool --host claude-code\`), with no Forge process running, then with such a watcher running, which the hook hands its work to over the same socket (as it does to \`forge mcp\`, which hosts run for a session); that row checks once, untimed, that the watcher ran the hook.`,
      `Status, re-snapshot and restore: ${CONFIG.changed} files edited in both copies, then ${CONFIG.settleMs} ms of quiet so neither Forge's stat cache nor git's index sees them as racy. Status runs repeat on the same change. Re-snapshot rounds each edit ${CONFIG.changed} other files; git's side is two processes (\`add -A\`, \`commit -q\`), times summed. Restore: states A and B (${CONFIG.changed} files apart) recorded by both, then B → A, A → B, … (\`forge files restore\` writes the files and records the result — a safety snapshot first only when the files changed since the last snapshot, which here they have not; \`git checkout -q SHA\` moves a detached HEAD); the files are compared after each round.`,
      `First snapshot: fresh copies each time (page cache warm: just copied), Forge's with the committed .git.${BIG ? ` The big-tree rows: the first snapshot once each, status and restore ${CONFIG.bigStatusReps} and ${CONFIG.bigRestoreReps} rounds.` : ""}`,
      `Git: GIT_CONFIG_NOSYSTEM=1, a fixed author and committer (as the check), gc.auto=0 and maintenance.auto=false (no background packing mid-run; the repositories keep loose objects).`,
      ...notes,
      "The machine has 2 cores shared with other work (load averages above): read the ratios, and figures within ±30 % of a bound as a tie.",
    ].map((n) => `- ${n}`),
    "",
  ].join("\n");
  publish("cold", out, { quick: QUICK, log });
}

runMain(main);
