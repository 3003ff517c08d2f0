// Bundle-bomb benchmark: what a small bundle whose one object inflates to a lot costs the
// process that imports it, and what fsck costs on a store that already holds such an object
// (as an older Forge's import left it) — peak RSS beside the inflated size, so the ratio
// shows the memory is bounded. The anchor is an ordinary bundle of about the same file size
// (a workspace snapshot of incompressible files), imported and checked the same way.
//
//   npm run bench:bundle-bomb
//   (= tsc -p tsconfig.bench.json && node build/bench/bundle-bomb.js)
//
// Each bomb is one `b` object of 64 MiB, 640 MiB or ~1.2 GiB of "~", deflated at ~1000:1
// from full-flushed segments (test/security/bundle-support.ts), as the chunk of a big file
// added to a real workspace bundle. Every command runs as a child (`node bin/forge.js`) on a
// SQLite store in a temp folder; its peak RSS is VmHWM from /proc/self/status, read as it
// exits (a preloaded hook, test/security/bundle-peak-rss.cjs).
//
// `--quick` leaves out the 1.2 GiB bomb and leaves bench/results/bundle-bomb.md alone.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { openStore } from "../src/index.js";
import { sha256 } from "../src/objects/hash.js";
import { dirNodeText, fileChunksText } from "../src/objects/node.js";
import { bomb, decode, rawOf, withBigFile, type Bomb } from "../test/security/bundle-support.js";
import { publish, runMain } from "./lib/report.js";
import { noise } from "./lib/workspace-fixtures.js";
import { formatBytes, formatMs, msSince } from "./lib/stats.js";
import { backendOf } from "../src/timeline/store-internals.js";

const QUICK = process.argv.includes("--quick");
const BOMBS_MIB = QUICK ? [64, 640] : [64, 640, 1232];
const COMMAND = "npm run bench:bundle-bomb";

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = join(HERE, "..", "..");
const FORGE_BIN = join(REPO, "bin", "forge.js");
const PEAK_RSS_HOOK = join(REPO, "test", "security", "bundle-peak-rss.cjs");

function log(msg: string): void {
  process.stderr.write(`[bundle-bomb] ${msg}\n`);
}

interface Measured {
  readonly code: number;
  readonly peakBytes: number;
  readonly ms: number;
  /** The first line of stderr (a refusal's message). */
  readonly said: string;
}

/** Runs `forge ARGS` in `cwd` as a child, with its peak RSS. */
function forge(cwd: string, args: string[]): Measured {
  const peakFile = join(cwd, ".peak-rss");
  rmSync(peakFile, { force: true });
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ["--require", PEAK_RSS_HOOK, FORGE_BIN, ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1", FORGE_STORE: "", FORGE_SESSION: "", FORGE_TEST_PEAK_RSS_FILE: peakFile },
    timeout: 600_000,
  });
  const ms = msSince(start);
  let peakKb = 0;
  try {
    peakKb = Number(readFileSync(peakFile, "utf8"));
  } catch (e) {
    throw new Error(`forge ${args.join(" ")} left no peak RSS (exit ${r.status}, signal ${r.signal}): ${(e as Error).message}`);
  }
  return { code: r.status ?? -1, peakBytes: peakKb * 1024, ms, said: (r.stderr || r.stdout).trim().split("\n")[0] ?? "" };
}

/** A folder with `forge init` run in it. */
function freshStore(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const r = spawnSync(process.execPath, [FORGE_BIN, "init"], { cwd: dir, encoding: "utf8", env: { ...process.env, FORGE_STORE: "" } });
  if (r.status !== 0) throw new Error(`forge init failed: ${r.stderr}`);
  return dir;
}

/** A workspace of `files` snapshotted and exported: the bundle's bytes. */
function workspaceBundle(dir: string, files: Record<string, Buffer | string>): Buffer {
  freshStore(dir);
  for (const [name, data] of Object.entries(files)) writeFileSync(join(dir, name), data);
  for (const args of [
    ["files", "snapshot", "tree"],
    ["checkpoint", "export", "--session", "workspace", "--output", "out.bundle"],
  ]) {
    const r = spawnSync(process.execPath, [FORGE_BIN, ...args], { cwd: dir, encoding: "utf8", env: { ...process.env, FORGE_STORE: "" } });
    if (r.status !== 0) throw new Error(`forge ${args.join(" ")} failed: ${r.stderr}`);
  }
  return readFileSync(join(dir, "out.bundle"));
}

/**
 * A store holding the bomb as an older Forge's import left it: the object, stored as it came,
 * as the first chunk of a big file in a checkpoint's files tree (so fsck walks to it).
 */
async function storeHolding(dir: string, b: Bomb): Promise<void> {
  freshStore(dir);
  const store = await openStore(`sqlite:${join(dir, ".forge", "forge.db")}`);
  try {
    await backendOf(store).putObjects([{ hash: b.hash, data: b.stored }]);
    const big = Buffer.from(fileChunksText([[b.hash, b.rawBytes - 1]]));
    const root = Buffer.from(dirNodeText([[sha256(big), "big.log", "f", 0o644, b.rawBytes - 1]]));
    await store.objects.putRaw(
      new Map([
        [sha256(big), big],
        [sha256(root), root],
      ]),
    );
    await (await store.session("workspace", { kind: "workspace" })).checkpoint({ kind: "forge.files" }, { filesRoot: sha256(root), trigger: "files" });
  } finally {
    await store.close();
  }
}

/** What a bundle's objects inflate to, all together. */
function inflatedSize(bundle: Buffer): number {
  let n = 0;
  for (const stored of decode(bundle).objects.values()) n += rawOf(stored).length;
  return n;
}

interface Row {
  readonly what: string;
  readonly fileBytes: number;
  /** Raw bytes of all its objects. */
  readonly inflated: number;
  readonly imported: Measured;
  readonly fsck: Measured;
}

async function main(): Promise<void> {
  const started = process.hrtime.bigint();
  const dir = mkdtempSync(join(tmpdir(), "forge-bench-bomb-"));
  const rows: Row[] = [];
  try {
    const base = workspaceBundle(join(dir, "origin"), { "readme.md": "# a workspace\n", "main.txt": "MAIN\n" });
    const baseInflated = inflatedSize(base);
    const bundles: { what: string; bytes: Buffer; bomb: Bomb }[] = [];
    for (const mib of BOMBS_MIB) {
      log(`building the ${mib} MiB bomb`);
      const b = bomb(mib);
      bundles.push({
        what: `bomb: one \`b\` object of ${mib >= 1024 ? `${(mib / 1024).toFixed(1)} GiB` : `${mib} MiB`}`,
        bytes: withBigFile(base, b),
        bomb: b,
      });
    }
    // The anchor: an honest bundle as big as the largest bomb's, of incompressible files.
    const largest = Math.max(...bundles.map((b) => b.bytes.length));
    log(`the anchor: a workspace of ${formatBytes(largest)} of incompressible files`);
    const honest = workspaceBundle(join(dir, "honest-origin"), {
      "readme.md": "# honest\n",
      "data.bin": noise(largest - 256 * 1024, 11),
      "small.bin": noise(200 * 1024, 12),
    });
    const honestFile = join(dir, "honest.bundle");
    writeFileSync(honestFile, honest);
    const honestTarget = freshStore(join(dir, "honest-target"));
    const honestImport = forge(honestTarget, ["checkpoint", "import", honestFile]);
    if (honestImport.code !== 0) throw new Error(`the honest bundle was refused: ${honestImport.said}`);
    rows.push({
      what: "anchor: an ordinary workspace bundle",
      fileBytes: honest.length,
      inflated: inflatedSize(honest),
      imported: honestImport,
      fsck: forge(honestTarget, ["fsck"]),
    });

    for (const [i, b] of bundles.entries()) {
      const file = join(dir, `bomb-${i}.bundle`);
      writeFileSync(file, b.bytes);
      log(`importing ${b.what} (${formatBytes(b.bytes.length)} file)`);
      const imported = forge(freshStore(join(dir, `target-${i}`)), ["checkpoint", "import", file]);
      log(`fsck of a store holding it`);
      await storeHolding(join(dir, `holding-${i}`), b.bomb);
      const fsck = forge(join(dir, `holding-${i}`), ["fsck"]);
      rows.push({ what: b.what, fileBytes: b.bytes.length, inflated: baseInflated + b.bomb.rawBytes, imported, fsck });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  const mib = (n: number) => `${(n / (1024 * 1024)).toFixed(0)} MiB`;
  const ratio = (r: Row, peak: number) => (r === rows[0] ? "—" : `${(peak / r.inflated).toFixed(peak / r.inflated < 0.1 ? 3 : 2)}×`);
  const outcome = (m: Measured) => (m.code === 0 ? "imported" : "refused");
  const table = [
    "| bundle | file | its objects inflate to | import: outcome · peak RSS · time | peak RSS / inflated | fsck of a store holding it: exit · peak RSS · time | peak RSS / inflated |",
    "| --- | --- | --- | --- | --- | --- | --- |",
    ...rows.map(
      (r) =>
        `| ${r.what} | ${formatBytes(r.fileBytes)} | ${formatBytes(r.inflated)} | ${outcome(r.imported)} · ${mib(r.imported.peakBytes)} · ${formatMs(r.imported.ms)} | ${ratio(r, r.imported.peakBytes)} | ${r.fsck.code} · ${mib(r.fsck.peakBytes)} · ${formatMs(r.fsck.ms)} | ${ratio(r, r.fsck.peakBytes)} |`,
    ),
  ];
  const refusals = rows
    .filter((r) => r.imported.code !== 0)
    .map((r) => `- ${r.what}: \`${r.imported.said.replace(/[0-9a-f]{64}/, (h) => `${h.slice(0, 12)}…`)}\``);
  const cpu = cpus();
  const env = `Node ${process.version}, ${cpu[0]?.model.trim() ?? "unknown CPU"} × ${cpu.length}, ${process.platform}/${process.arch}`;
  const out = [
    "# Bundle bomb benchmark",
    "",
    `Command: \`${COMMAND}\`${QUICK ? " --quick (QUICK MODE: no 1.2 GiB bomb)" : ""}`,
    "",
    `Run: ${new Date().toISOString()} · ${env} · total ${formatMs(msSince(started))}`,
    "",
    ...table,
    "",
    "What import said:",
    "",
    ...refusals,
    "",
    "- Import: `forge checkpoint import FILE` into a fresh SQLite store. fsck: `forge fsck` on a store that holds the bomb as an older Forge's import left it (the object as the first chunk of a big file in a checkpoint's files tree), so fsck must verify it; the anchor's fsck runs on the store its import made.",
    "- Peak RSS: VmHWM of the child, read from /proc/self/status as it exits. A bare `forge --version` peaks at ~51 MiB.",
    "",
  ].join("\n");
  publish("bundle-bomb", out, { quick: QUICK, log });
}

runMain(main);
