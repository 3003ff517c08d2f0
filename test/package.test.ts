// The published package as a user gets it: `npm pack` of this checkout, its file list, and
// one `npm install -g --prefix` of the tarball into an empty folder (better-sqlite3 compiles
// from source: 1–3 minutes), whose bin/forge then runs, and whose forge-reasoning/langgraph
// is imported without the optional peers the install leaves out.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join, posix } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requireBuiltLibrary } from "./support/processes.js";
import { makeTempDir, type TempDir } from "./support/temp.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
const INSTALL_TIMEOUT_MS = 8 * 60_000;

/** The environment of a user's shell: none of the npm_* variables `npm test` sets for its scripts. */
function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
  return { ...env, NO_COLOR: "1", ...extra };
}

function run(command: string, args: readonly string[], cwd: string, timeout = 120_000) {
  const r = spawnSync(command, args, { cwd, encoding: "utf8", env: userEnv(), timeout, maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw r.error;
  return r;
}

const temp: TempDir = makeTempDir("package");
afterAll(() => temp.remove());

let tarball = "";
/** The tarball's files, without the leading `package/`. */
let files: string[] = [];

beforeAll(() => {
  requireBuiltLibrary();
  // --ignore-scripts: pack the dist/ that `npm test` has just built. Without it `prepare`
  // would rebuild dist/ under the test files running beside this one.
  const packed = run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", temp.path], ROOT);
  expect(packed.status, packed.stderr).toBe(0);
  const [info] = JSON.parse(packed.stdout) as { filename: string }[];
  tarball = join(temp.path, info?.filename ?? "");
  const listed = run("tar", ["tzf", tarball], temp.path);
  expect(listed.status, listed.stderr).toBe(0);
  files = listed.stdout
    .split("\n")
    .filter((l) => l !== "" && !l.endsWith("/"))
    .map((l) => l.replace(/^package\//, ""));
});

describe("the tarball", () => {
  it("holds LICENSE, README.md, docs/*.md, bin/forge.js and dist/, and no src/ or test/", () => {
    expect(files).toEqual(expect.arrayContaining(["LICENSE", "README.md", "package.json", "bin/forge.js", "dist/index.js", "dist/cli/main.js"]));
    expect(files.filter((f) => /^docs\/[^/]+\.md$/.test(f)).length).toBeGreaterThan(0);
    expect(files.filter((f) => /^(src|test|bench|scripts)\//.test(f))).toEqual([]);
  });

  it("holds every Markdown file README.md links to", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const linked = [...readme.matchAll(/\]\(([^)#\s]+\.md)(#[^)]*)?\)/g)].map((m) => m[1] ?? "").filter((l) => !/^[a-z]+:/i.test(l));
    expect(linked.length).toBeGreaterThan(0);
    expect(linked.filter((l) => !files.includes(posix.normalize(l)))).toEqual([]);
  });

  it("holds no source map that names a file it does not hold, and no reference to a missing map", () => {
    const unpacked = join(temp.path, "unpacked");
    mkdirSync(unpacked);
    const x = run("tar", ["xzf", tarball, "-C", unpacked], temp.path);
    expect(x.status, x.stderr).toBe(0);
    const problems: string[] = [];
    for (const file of files) {
      if (!/\.(m|c)?js$|\.map$/.test(file)) continue;
      const text = readFileSync(join(unpacked, "package", file), "utf8");
      const maps: { where: string; map: { sources?: unknown[]; sourceRoot?: string } }[] = [];
      if (file.endsWith(".map")) maps.push({ where: file, map: JSON.parse(text) });
      for (const [, url] of text.matchAll(/[#@] sourceMappingURL=(\S+)/g)) {
        const inline = /^data:application\/json[^,]*;base64,(.*)$/.exec(url ?? "");
        if (inline) maps.push({ where: file, map: JSON.parse(Buffer.from(inline[1] ?? "", "base64").toString("utf8")) });
        else if (!files.includes(posix.join(posix.dirname(file), url ?? ""))) problems.push(`${file} -> missing map ${url}`);
      }
      for (const { where, map } of maps) {
        for (const source of map.sources ?? []) {
          const path = posix.normalize(posix.join(posix.dirname(where), map.sourceRoot ?? "", String(source)));
          if (!files.includes(path)) problems.push(`${where} -> ${source}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });
});

describe("installed with `npm install -g --prefix` into an empty folder", () => {
  const prefix = join(temp.path, "prefix");
  const bin = join(prefix, "bin", "forge");
  /** Where the installed package's own files are. */
  const installed = join(prefix, "lib", "node_modules", "forge-reasoning");

  beforeAll(async () => {
    // --prefer-offline: every dependency comes from npm's cache when it is there (after
    // `npm ci` it is); --offline would fail where the cache lacks registry metadata that a
    // fresh resolve needs. The install runs outside the checkout, as a user's would.
    const cwd = join(temp.path, "elsewhere");
    mkdirSync(cwd);
    const args = ["install", "-g", "--prefix", prefix, "--prefer-offline", "--no-audit", "--no-fund", tarball];
    const child = spawn("npm", args, { cwd, env: userEnv(), stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (b: Buffer) => (output += b));
    child.stderr.on("data", (b: Buffer) => (output += b));
    const timer = setTimeout(() => child.kill("SIGKILL"), INSTALL_TIMEOUT_MS);
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
      child.once("error", reject);
      child.once("close", (c, s) => resolve([c, s]));
    }).finally(() => clearTimeout(timer));
    expect({ code, signal }, `npm ${args.join(" ")}\n${output}`).toEqual({ code: 0, signal: null });
  }, INSTALL_TIMEOUT_MS + 30_000);

  it("forge --version prints package.json's version", () => {
    const r = run(bin, ["--version"], temp.path);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`${VERSION}\n`);
  });

  it("forge demo tells its story to the end and exits 0", () => {
    const demoDir = join(temp.path, "demo");
    mkdirSync(demoDir);
    const r = run(bin, ["demo"], demoDir);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout.split("\n")[0]).toBe("Forge demo: a debugging session, checkpointed");
  });

  it("forge-reasoning loads without the optional LangGraph peers", () => {
    const r = run(
      process.execPath,
      ["--input-type=module", "-e", `const m = await import("forge-reasoning"); console.log(typeof m.openStore);`],
      dirname(installed),
    );
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe("function\n");
  });

  it("importing forge-reasoning/langgraph without its peers names them and the command that installs them", () => {
    // The install leaves optional peers out; nothing above the prefix may provide them either.
    for (let d = installed; dirname(d) !== d; d = dirname(d)) {
      expect(existsSync(join(d, "node_modules", "@langchain")), `precondition: ${join(d, "node_modules", "@langchain")} exists`).toBe(false);
    }
    const script = `
      try { await import("forge-reasoning/langgraph"); console.log("loaded"); }
      catch (e) { console.log(JSON.stringify({ name: e.name, code: e.code, message: e.message, data: e.data })); }`;
    const r = run(process.execPath, ["--input-type=module", "-e", script], dirname(installed));
    expect(r.stderr).toBe("");
    expect(JSON.parse(r.stdout)).toEqual({
      name: "ForgeError",
      code: "NOT_FOUND",
      message: expect.stringContaining("run `npm install @langchain/langgraph-checkpoint @langchain/core`"),
      data: { kind: "package", missing: ["@langchain/langgraph-checkpoint", "@langchain/core"] },
    });
  });
});
