// Fixtures for the workspace benchmark: a generated tree of files, folder sizes, the
// "10 files changed" edits, child processes timed from the outside, and a shadow git
// repository (git --git-dir=S --work-tree=R) to compare against.
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { msSince } from "./stats.js";
import { Rng } from "./workloads.js";

// ---------------------------------------------------------------- generated tree

export interface GeneratedTree {
  /** Every file, relative and "/"-separated. */
  readonly files: string[];
  /** Small text files: the ones the "10 files changed" edits pick from. */
  readonly small: string[];
  readonly bytes: number;
  readonly folders: number;
  readonly counts: { readonly small: number; readonly larger: number; readonly big: number; readonly binary: number };
}

const WORDS = [
  "const",
  "let",
  "return",
  "function",
  "import",
  "export",
  "from",
  "if",
  "else",
  "for",
  "await",
  "async",
  "new",
  "this",
  "null",
  "value",
  "result",
  "options",
  "config",
  "state",
  "items",
  "index",
  "count",
  "path",
  "name",
  "data",
  "error",
  "event",
  "node",
  "parent",
  "child",
  "buffer",
  "stream",
  "session",
  "store",
  "cache",
  "hash",
  "tree",
  "file",
  "folder",
  "snapshot",
  "restore",
  "read",
  "write",
  "open",
  "close",
  "update",
  "create",
  "delete",
  "list",
  "map",
  "filter",
  "reduce",
  "push",
  "length",
  "size",
];
const PUNCT = [" = ", "(", ")", "; ", ", ", ".", " => ", " { ", " }", "[", "]", " + ", " === ", ": "];

/** A standard normal draw (Box–Muller). */
function normal(rng: Rng): number {
  const u = Math.max(rng.next(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.next());
}

/** About `bytes` bytes of source-like text: indented lines of identifiers, numbers and punctuation. */
function text(rng: Rng, bytes: number): string {
  const lines: string[] = [];
  let n = 0;
  while (n < bytes) {
    let line = "  ".repeat(rng.int(0, 4));
    const tokens = rng.int(3, 12);
    for (let i = 0; i < tokens; i++) {
      const r = rng.next();
      line += r < 0.7 ? (WORDS[rng.int(0, WORDS.length - 1)] as string) : r < 0.85 ? String(rng.int(0, 99999)) : `id${rng.int(0, 0xfffff).toString(16)}`;
      line += PUNCT[rng.int(0, PUNCT.length - 1)] as string;
    }
    lines.push(line);
    n += line.length + 1;
  }
  return lines.join("\n").slice(0, bytes) + "\n";
}

/** Incompressible bytes (a seeded xorshift stream). */
function binary(rng: Rng, bytes: number): Buffer {
  return noise(bytes, (rng.next() * 0xffffffff) >>> 0);
}

/** `n` deterministic bytes that do not compress: a xorshift32 stream from `seed`. */
export function noise(n: number, seed: number): Buffer {
  const words = new Uint32Array(Math.ceil(n / 4));
  let x = seed >>> 0 || 1;
  for (let i = 0; i < words.length; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    words[i] = x;
  }
  return Buffer.from(words.buffer, 0, n);
}

/**
 * Writes a tree of `topDirs` × `subDirs` leaf folders with `perFolder` files each: mostly
 * small text files (log-normal sizes, median ≈ 1.3 KB), some larger text files (40–400 KB),
 * a few over 1 MB (so they are cut into chunks) and a few binary ones (incompressible).
 */
export function generateTree(root: string, seed = 42, shape = { topDirs: 20, subDirs: 25, perFolder: 20 }): GeneratedTree {
  const rng = new Rng(seed);
  const files: string[] = [];
  const small: string[] = [];
  const counts = { small: 0, larger: 0, big: 0, binary: 0 };
  let bytes = 0;
  let folders = 0;
  for (let t = 0; t < shape.topDirs; t++) {
    for (let s = 0; s < shape.subDirs; s++) {
      const dir = `pkg${String(t).padStart(2, "0")}/mod${String(s).padStart(2, "0")}`;
      mkdirSync(join(root, dir), { recursive: true });
      folders++;
      for (let f = 0; f < shape.perFolder; f++) {
        const r = rng.next();
        let path: string;
        let data: string | Buffer;
        if (r < 0.002) {
          path = `${dir}/asset${f}.bin`;
          data = binary(rng, rng.int(8 * 1024, 256 * 1024));
          counts.binary++;
        } else if (r < 0.0023) {
          path = `${dir}/data${f}.log`;
          data = text(rng, rng.int(1200 * 1024, 2 * 1024 * 1024));
          counts.big++;
        } else if (r < 0.0101) {
          path = `${dir}/gen${f}.ts`;
          data = text(rng, rng.int(40 * 1024, 400 * 1024));
          counts.larger++;
        } else {
          path = `${dir}/file${f}.ts`;
          data = text(rng, Math.min(32 * 1024, Math.max(40, Math.round(Math.exp(Math.log(1300) + 0.8 * normal(rng))))));
          counts.small++;
          small.push(path);
        }
        writeFileSync(join(root, path), data);
        files.push(path);
        bytes += typeof data === "string" ? Buffer.byteLength(data) : data.length;
      }
    }
  }
  return { files, small, bytes, folders, counts };
}

/** Regular files under `root` (relative paths) whose names end with one of `exts`, sorted. */
export function listFiles(root: string, exts: readonly string[], skip: readonly string[] = [".forge", ".git"]): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const name of readdirSync(rel === "" ? root : join(root, rel))) {
      if (skip.includes(name)) continue;
      const path = rel === "" ? name : `${rel}/${name}`;
      const st = lstatSync(join(root, path));
      if (st.isDirectory()) walk(path);
      else if (st.isFile() && exts.some((e) => name.endsWith(e))) out.push(path);
    }
  };
  walk("");
  return out.sort();
}

// ---------------------------------------------------------------- sizes

export interface Usage {
  readonly files: number;
  /** Σ file sizes. */
  readonly apparent: number;
  /** Σ allocated blocks (what du reports). */
  readonly disk: number;
}

/** Files, apparent bytes and allocated bytes under `path` (a file or a folder). */
export function usage(path: string): Usage {
  let files = 0;
  let apparent = 0;
  let disk = 0;
  const visit = (p: string) => {
    const st = lstatSync(p);
    if (st.isDirectory()) {
      for (const name of readdirSync(p)) visit(join(p, name));
      return;
    }
    files++;
    apparent += st.size;
    disk += st.blocks * 512;
  };
  try {
    visit(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
  return { files, apparent, disk };
}

// ---------------------------------------------------------------- edits

/** One round of edits: the same paths and bytes, applied to every copy of a tree. */
export interface Edit {
  readonly path: string;
  readonly data: Buffer;
}

/** `n` distinct files of `candidates`, each given a changed line and an appended one (tagged with `round`). */
export function planEdits(rng: Rng, root: string, candidates: readonly string[], n: number, round: string): Edit[] {
  return rng.distinct(n, candidates.length).map((i) => {
    const path = candidates[i] as string;
    const before = readFileSync(join(root, path));
    const at = Math.floor(before.length / 2);
    const data = Buffer.concat([before.subarray(0, at), Buffer.from(`/* edited ${round} */`), before.subarray(at), Buffer.from(`\n// ${round}\n`)]);
    return { path, data };
  });
}

export function applyEdits(root: string, edits: readonly Edit[]): void {
  for (const e of edits) writeFileSync(join(root, e.path), e.data);
}

// ---------------------------------------------------------------- processes

export interface Run {
  readonly ms: number;
  readonly stdout: string;
}

/** Runs a command to completion and times it from the outside (spawn to exit); a failure throws. */
export function runTimed(cmd: string, args: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv; okCodes?: readonly number[] }): Run {
  const start = process.hrtime.bigint();
  const r: SpawnSyncReturns<string> = spawnSync(cmd, args, { cwd: options.cwd, env: options.env, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  const ms = msSince(start);
  if (r.error) throw r.error;
  if (!(options.okCodes ?? [0]).includes(r.status ?? -1)) {
    throw new Error(`${cmd} ${args.join(" ")} exited ${r.status ?? r.signal}: ${r.stderr.slice(0, 2000)}`);
  }
  return { ms, stdout: r.stdout };
}

/** The environment without the variables that would point a child at another store or config. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("FORGE_") && !k.startsWith("GIT_") && k !== "NODE_OPTIONS") env[k] = v;
  return { ...env, NO_COLOR: "1", ...extra };
}

// ---------------------------------------------------------------- shadow git

const GIT_ENV = {
  GIT_AUTHOR_NAME: "bench",
  GIT_AUTHOR_EMAIL: "bench@example.invalid",
  GIT_COMMITTER_NAME: "bench",
  GIT_COMMITTER_EMAIL: "bench@example.invalid",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_TERMINAL_PROMPT: "0",
};

/**
 * A shadow repository: the git folder outside the work tree, as a snapshot tool built on
 * git would keep it. Every command gets `-c gc.auto=0` (no automatic packing) and a fixed
 * identity. Its exclude file mirrors Forge's default ignores.
 */
export class ShadowGit {
  readonly gitDir: string;
  readonly workTree: string;
  readonly env: NodeJS.ProcessEnv;

  constructor(gitDir: string, workTree: string) {
    this.gitDir = gitDir;
    this.workTree = workTree;
    this.env = cleanEnv(GIT_ENV);
  }

  #args(args: readonly string[]): string[] {
    return [`--git-dir=${this.gitDir}`, `--work-tree=${this.workTree}`, "-c", "gc.auto=0", "-c", "maintenance.auto=false", ...args];
  }

  run(args: readonly string[], okCodes?: readonly number[]): Run {
    return runTimed("git", this.#args(args), { cwd: this.workTree, env: this.env, ...(okCodes && { okCodes }) });
  }

  init(): void {
    runTimed("git", [`--git-dir=${this.gitDir}`, "init", "-q"], { cwd: this.workTree, env: this.env });
    writeFileSync(join(this.gitDir, "info", "exclude"), ".forge/\nnode_modules/\n");
  }

  /** `add -A` then `commit` (allowed empty, as Forge records a snapshot whether or not anything changed): the two processes' times. */
  snapshot(message = "x"): { ms: number; addMs: number; commitMs: number } {
    const add = this.run(["add", "-A"]);
    const commit = this.run(["commit", "-q", "--allow-empty", "--no-verify", "-m", message]);
    return { ms: add.ms + commit.ms, addMs: add.ms, commitMs: commit.ms };
  }

  status(): Run {
    return this.run(["status", "--porcelain"]);
  }

  /** Brings every tracked file back to HEAD. */
  restore(): Run {
    return this.run(["checkout", "-f", "HEAD", "--", "."]);
  }

  /** How many paths HEAD's tree holds. */
  trackedFiles(): number {
    return this.run(["ls-tree", "-r", "-z", "--name-only", "HEAD"])
      .stdout.split("\0")
      .filter((s) => s !== "").length;
  }
}
