#!/usr/bin/env node
// `npm run bench`: every benchmark with its anchor in one go, then BENCHMARKS.md's tables
// rewritten from the fresh results.
//
//   npm run bench                               all of them, one after another (about 20 minutes here)
//   npm run bench -- --only cold,bundle-bomb    only these (names as in `npm run bench:NAME`)
//   npm run bench -- --quick                    each with --quick: smaller counts for trying the harness; a
//                                               quick run writes no bench/results/ file, so BENCHMARKS.md is left alone
//   npm run bench -- --splice-only [--only …]   run nothing: place the tables of bench/results/ as they are
//   npm run bench -- --dry-run …                print what would be placed, write nothing to BENCHMARKS.md
//   npm run bench -- --only cold -- --no-100k   what follows a second -- goes to every benchmark run
//
// It compiles the benchmarks once (tsc -p tsconfig.bench.json), then runs each as its
// `bench:NAME` script in package.json does, minus the compile step: a child process whose
// output shows as it comes. A benchmark writes bench/results/NAME.md (lib/report.ts's
// publish()); from it this takes the "Command: …" line, the "Run: …" line (date, Node, CPU
// and cores) and the first table, puts the ratio columns first (right after the columns
// that name the row), and replaces what stands between
//
//   <!-- bench:NAME:begin -->  …  <!-- bench:NAME:end -->
//
// in BENCHMARKS.md; the prose around the markers stays. BENCHMARKS.md is read and written
// again after each benchmark, so a long run does not undo edits made to it meanwhile, and
// what finished is placed even if a later benchmark fails. A benchmark that fails (a
// non-zero exit, or no fresh results file) is reported and its section left as it was; the
// exit code is then 1. A benchmark whose section has no markers is reported (its results
// are in bench/results/) and does not fail the run.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..");
const DOC = join(REPO, "BENCHMARKS.md");

/**
 * The benchmarks, in the order they run. `labels`: how many leading columns of its table name
 * the row (the ratio columns go right after them); none: the table is placed as printed.
 * `args`: what the published table was made with. `optional`: run only when its source exists.
 */
const BENCHES = [
  { name: "engine", labels: 2 },
  { name: "reasoning", labels: 2 },
  { name: "workspace", labels: 2 },
  { name: "langgraph", labels: 2 },
  { name: "runs", labels: 2 },
  { name: "watch", labels: 1 },
  { name: "search", labels: 2, args: ["--postgres"] },
  // Its two "peak RSS / inflated" columns each belong to the column before them: left in place.
  { name: "bundle-bomb" },
  { name: "cold", labels: 1 },
  { name: "start", labels: 1 },
  { name: "history", labels: 2, optional: true, args: ["--postgres", "--file"] },
];

const say = (msg) => process.stderr.write(`[bench] ${msg}\n`);
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(" / ");
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

// ---------------------------------------------------------------- arguments

function parseArgs(argv) {
  const opts = { only: undefined, quick: false, spliceOnly: false, dryRun: false, extra: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--") {
      opts.extra = argv.slice(i + 1);
      break;
    } else if (a === "--quick") opts.quick = true;
    else if (a === "--splice-only") opts.spliceOnly = true;
    else if (a === "--dry-run") opts.dryRun = true;
    else if (a === "--only" || a.startsWith("--only=")) {
      const v = a === "--only" ? argv[++i] : a.slice("--only=".length);
      if (!v) throw new Error("--only needs NAME[,NAME…]");
      opts.only = [
        ...(opts.only ?? []),
        ...v
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean),
      ];
    } else if (a === "--help" || a === "-h") {
      process.stdout.write(`${readFileSync(fileURLToPath(import.meta.url), "utf8").split("\nimport ")[0]}\n`);
      process.exit(0);
    } else throw new Error(`unknown argument ${a} (see --help)`);
  }
  const known = BENCHES.map((b) => b.name);
  for (const n of opts.only ?? []) if (!known.includes(n)) throw new Error(`--only: no benchmark "${n}" (known: ${known.join(", ")})`);
  return opts;
}

// ---------------------------------------------------------------- running

/** `bench:NAME`'s script without its compile step, as [command, ...args]; node is this node. */
function commandOf(name, scripts) {
  const script = scripts[`bench:${name}`];
  const m = script === undefined ? null : /^(?:npx )?tsc -p tsconfig\.bench\.json && (node\s.+)$/.exec(script.trim());
  const words = m ? m[1].split(/\s+/) : ["node", "--expose-gc", `build/bench/${name}.js`];
  return [process.execPath, ...words.slice(1)];
}

function mtime(path) {
  return existsSync(path) ? statSync(path).mtimeMs : -1;
}

function compile() {
  say("compiling the benchmarks: tsc -p tsconfig.bench.json");
  const r = spawnSync(process.execPath, [join(REPO, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.bench.json"], { cwd: REPO, stdio: "inherit" });
  return r.status === 0;
}

/** Runs one benchmark; what happened, for the summary. */
function runBench(bench, scripts, opts) {
  const results = join(REPO, "bench", "results", `${bench.name}.md`);
  const before = mtime(results);
  const [cmd, ...args] = commandOf(bench.name, scripts);
  const all = [...args, ...(bench.args ?? []), ...(opts.quick ? ["--quick"] : []), ...opts.extra];
  say(`── ${bench.name}: node ${all.join(" ")} (load average ${load()})`);
  const t = Date.now();
  const r = spawnSync(cmd, all, { cwd: REPO, stdio: "inherit" });
  const ms = Date.now() - t;
  if (r.error) return { ok: false, ms, why: `could not start: ${r.error.message}` };
  if (r.status !== 0) return { ok: false, ms, why: `exited ${r.status ?? r.signal}` };
  if (opts.quick) return { ok: true, ms, why: "a quick run writes no results file", skip: true };
  if (mtime(results) <= before) return { ok: false, ms, why: `exited 0 but did not write bench/results/${bench.name}.md` };
  return { ok: true, ms };
}

// ---------------------------------------------------------------- the block placed in BENCHMARKS.md

/** A table row's cells ("| a | b \\| c |" → ["a", "b \\| c"]), each without the one space either side of it; escaped pipes stay escaped. */
function cells(line) {
  const out = [];
  let cur = "";
  const body = line.trim().replace(/^\|/, "");
  const push = () => out.push(cur.replace(/^ /, "").replace(/ $/, ""));
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (ch === "\\" && body[i + 1] === "|") {
      cur += "\\|";
      i++;
    } else if (ch === "|") {
      push();
      cur = "";
    } else cur += ch;
  }
  if (cur.trim() !== "") push();
  return out;
}

const isRatio = (header) => /\bratio\b/i.test(header) || /^forge\b.*\s\/\s/i.test(header);

/** The table with its ratio columns moved right after the first `labels` columns (their order kept). */
function ratiosFirst(table, labels) {
  if (labels === undefined) return table;
  const rows = table.map(cells);
  const header = rows[0];
  const ratio = header.map((h, i) => (i >= labels && isRatio(h) ? i : -1)).filter((i) => i >= 0);
  if (ratio.length === 0) return table;
  const order = [...header.keys()].filter((i) => i < labels);
  order.push(...ratio, ...[...header.keys()].filter((i) => i >= labels && !ratio.includes(i)));
  return rows.map((r) => `| ${order.map((i) => r[i] ?? "").join(" | ")} |`);
}

/** From a results file: its Command and Run lines and its first table (ratios first). */
function blockFrom(bench, markdown, writtenMs) {
  const lines = markdown.split("\n");
  const start = lines.findIndex((l, i) => l.startsWith("|") && /^\|[\s:|-]+\|$/.test((lines[i + 1] ?? "").trim()));
  if (start < 0) throw new Error(`bench/results/${bench.name}.md holds no table`);
  let end = start;
  while (end < lines.length && lines[end].trim().startsWith("|")) end++;
  const table = ratiosFirst(lines.slice(start, end), bench.labels);
  const command = lines.find((l) => l.startsWith("Command: ")) ?? `Command: \`npm run bench:${bench.name}\``;
  const run =
    lines.find((l) => l.startsWith("Run: ")) ??
    `Run: ${new Date(writtenMs).toISOString()} (when bench/results/${bench.name}.md was written) · Node ${process.version}, ${cpus()[0]?.model.trim() ?? "unknown CPU"} × ${cpus().length}, ${process.platform}/${process.arch}`;
  return [command, "", run, "", ...table].join("\n");
}

const markers = (name) => [`<!-- bench:${name}:begin -->`, `<!-- bench:${name}:end -->`];

/** BENCHMARKS.md with the section's generated part replaced; null when it has no markers for it. */
function splice(doc, name, block) {
  const [begin, end] = markers(name);
  const b = doc.indexOf(begin);
  const e = doc.indexOf(end);
  if (b < 0 && e < 0) return null;
  if (b < 0 || e < 0 || e < b || doc.indexOf(begin, b + 1) >= 0 || doc.indexOf(end, e + 1) >= 0) {
    throw new Error(`BENCHMARKS.md: the markers for ${name} must be one ${begin} and, after it, one ${end}`);
  }
  return `${doc.slice(0, b + begin.length)}\n\n${block}\n\n${doc.slice(e)}`;
}

/** Places bench/results/NAME.md's table in BENCHMARKS.md (read and written now); "placed", "no markers" or "unchanged". */
function place(bench, opts) {
  const file = join(REPO, "bench", "results", `${bench.name}.md`);
  if (!existsSync(file)) throw new Error(`no bench/results/${bench.name}.md`);
  const block = blockFrom(bench, readFileSync(file, "utf8"), statSync(file).mtimeMs);
  const doc = readFileSync(DOC, "utf8");
  const next = splice(doc, bench.name, block);
  if (next === null) return "no markers";
  if (opts.dryRun) {
    process.stdout.write(`\n${markers(bench.name)[0]}\n\n${block}\n\n${markers(bench.name)[1]}\n`);
    return next === doc ? "unchanged" : "would be placed (dry run)";
  }
  if (next === doc) return "unchanged";
  const tmp = `${DOC}.${process.pid}.tmp`;
  writeFileSync(tmp, next);
  renameSync(tmp, DOC);
  return "placed";
}

// ---------------------------------------------------------------- main

function main() {
  const opts = parseArgs(process.argv.slice(2));
  const scripts = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")).scripts ?? {};
  const chosen = BENCHES.filter((b) => (opts.only ? opts.only.includes(b.name) : true)).filter((b) => {
    if (!b.optional || existsSync(join(REPO, "bench", `${b.name}.ts`))) return true;
    say(`${b.name}: bench/${b.name}.ts does not exist (yet): skipped`);
    return false;
  });
  say(
    `${opts.spliceOnly ? "placing the tables of" : "running"} ${chosen.map((b) => b.name).join(", ")}${opts.quick ? " (--quick)" : ""} · Node ${process.version}, ${cpus()[0]?.model.trim()} × ${cpus().length} · load average ${load()}`,
  );
  if (!opts.spliceOnly && !compile()) {
    say("the benchmarks do not compile: nothing run, BENCHMARKS.md left as it was");
    process.exitCode = 1;
    return;
  }
  const summary = [];
  for (const bench of chosen) {
    const ran = opts.spliceOnly ? { ok: true, ms: 0 } : runBench(bench, scripts, opts);
    let section = "left as it was";
    if (ran.ok && !ran.skip) {
      try {
        section = place(bench, opts);
      } catch (e) {
        ran.ok = false;
        ran.why = e instanceof Error ? e.message : String(e);
      }
    }
    if (section === "no markers")
      say(`${bench.name}: BENCHMARKS.md has no ${markers(bench.name).join(" … ")}: its table is in bench/results/${bench.name}.md only`);
    if (!ran.ok) say(`${bench.name}: FAILED (${ran.why}); its section in BENCHMARKS.md left as it was`);
    summary.push({ name: bench.name, ran, section });
  }
  const failed = summary.filter((s) => !s.ran.ok);
  process.stdout.write(
    [
      "",
      `| benchmark | ${opts.spliceOnly ? "" : "outcome | time | "}BENCHMARKS.md section |`,
      `| --- | ${opts.spliceOnly ? "" : "--- | --- | "}--- |`,
      ...summary.map(
        (s) =>
          `| ${s.name} | ${opts.spliceOnly ? "" : `${s.ran.ok ? "ok" : `FAILED: ${s.ran.why}`} | ${seconds(s.ran.ms)} | `}${s.ran.ok ? s.section : "left as it was"}${s.ran.skip ? ` (${s.ran.why})` : ""} |`,
      ),
      "",
      `load average at the end: ${load()}${failed.length > 0 ? ` · ${failed.length} failed: ${failed.map((s) => s.name).join(", ")}` : ""}`,
      "",
    ].join("\n"),
  );
  if (failed.length > 0) process.exitCode = 1;
}

try {
  main();
} catch (e) {
  say(e instanceof Error ? e.message : String(e));
  process.exitCode = 1;
}
