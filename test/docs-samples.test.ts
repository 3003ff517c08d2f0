// The library samples of README.md and docs/*.md, run as a reader would run them: every
// fenced ts/js block that imports forge-reasoning is type-checked against the package's
// declarations and run by node (esbuild strips the types) in a folder of its own, whose
// node_modules/forge-reasoning is this repository — so imports go through package.json's
// exports to the built dist/ — on a fresh store in that folder.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { transformSync } from "esbuild";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requireBuiltLibrary } from "./support/processes.js";
import { makeTempDir, type TempDir } from "./support/temp.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const DOCS = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((n) => n.endsWith(".md"))
    .map((n) => `docs/${n}`),
];

interface Sample {
  /** Where a reader finds it: the file and the section (and which of its samples, when it has more). */
  readonly name: string;
  readonly file: string;
  readonly section: string;
  /** The line of `file` that holds the sample's first line. */
  readonly line: number;
  readonly lang: "ts" | "js";
  readonly code: string;
}

/** The fenced ts/js blocks of `file` that import the library (shell, JSON and workspace files left out). */
function samplesOf(file: string): Sample[] {
  const lines = readFileSync(join(ROOT, file), "utf8").split("\n");
  const samples: Sample[] = [];
  let section = "";
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    const heading = /^#{1,6}\s+(.*)$/.exec(line);
    if (heading) section = heading[1] ?? "";
    const fence = /^(`{3,})(\w*)/.exec(line);
    if (!fence) continue;
    const close = new RegExp(`^${fence[1]}\`*\\s*$`);
    const end = lines.findIndex((l, j) => j > i && close.test(l));
    if (end < 0) throw new Error(`${file}:${i + 1}: a code block that never closes`);
    const code = lines.slice(i + 1, end).join("\n");
    const lang = /^(ts|typescript)$/.test(fence[2] ?? "") ? "ts" : /^(js|javascript|mjs)$/.test(fence[2] ?? "") ? "js" : undefined;
    if (lang && /from\s+["']forge-reasoning(\/[\w-]+)?["']/.test(code)) {
      const nth = samples.filter((s) => s.section === section).length + 1;
      samples.push({ name: `${file}, "${section}"${nth > 1 ? ` (sample ${nth})` : ""}`, section, file, line: i + 2, lang, code });
    }
    i = end;
  }
  return samples;
}

const SAMPLES = DOCS.flatMap(samplesOf);

/**
 * A folder a sample runs in, set up like a reader's project after `npm install
 * forge-reasoning` (with LangGraph, for the LangGraph sample, and @types/node, for the
 * type-check): a package.json, and node_modules holding forge-reasoning (this repository's
 * root, so its exports map and dist/), @langchain and @types.
 */
function project(label: string): TempDir {
  const dir = makeTempDir(label);
  writeFileSync(join(dir.path, "package.json"), JSON.stringify({ name: "reader", private: true, type: "module" }));
  mkdirSync(join(dir.path, "node_modules"));
  symlinkSync(ROOT, join(dir.path, "node_modules", "forge-reasoning"), "dir");
  for (const scope of ["@langchain", "@types"]) symlinkSync(join(ROOT, "node_modules", scope), join(dir.path, "node_modules", scope), "dir");
  return dir;
}

/** The environment a sample runs in: no store chosen by the developer's shell. */
function sampleEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" };
  delete env["FORGE_STORE"];
  delete env["FORGE_SESSION"];
  return env;
}

const folders: TempDir[] = [];
afterAll(() => {
  for (const f of folders) f.remove();
});

beforeAll(() => {
  requireBuiltLibrary();
  // openStore() with no URL takes the nearest .forge at or above the sample's folder: there must be none.
  const found = [];
  for (let d = tmpdir(); ; d = dirname(d)) {
    if (existsSync(join(d, ".forge"))) found.push(d);
    if (dirname(d) === d) break;
  }
  expect(found, "precondition: a .forge folder above the temp folder would be every sample's store").toEqual([]);
});

describe("the documentation's library samples", () => {
  it("are found: README.md has the library's samples", () => {
    expect(SAMPLES.filter((s) => s.name.startsWith("README.md")).length).toBeGreaterThanOrEqual(6);
  });

  it("type-check against the package's declarations, as a reader's strict TypeScript project would", () => {
    const dir = project("docs-types");
    folders.push(dir);
    const files = SAMPLES.map((s, i) => {
      const path = join(dir.path, `sample-${i}.${s.lang}`);
      writeFileSync(path, s.code);
      return path;
    });
    const program = ts.createProgram(files, {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      lib: ["lib.es2023.d.ts"],
      types: ["node"],
      strict: true,
      allowJs: true,
      checkJs: true,
      noEmit: true,
      skipLibCheck: true,
    });
    // Each problem as FILE:LINE of the Markdown, where a reader would fix it.
    const problems = ts.getPreEmitDiagnostics(program).map((d) => {
      const sample = d.file ? SAMPLES[files.indexOf(d.file.fileName)] : undefined;
      const at = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line : 0;
      const where = sample ? `${sample.file}:${sample.line + at}` : (d.file?.fileName ?? "(options)");
      return `${where}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
    });
    expect(problems).toEqual([]);
  });

  it.each(SAMPLES.map((s) => [s.name, s] as const))("run on a fresh store: %s", (_name, sample) => {
    const dir = project("docs-sample");
    folders.push(dir);
    const { code } = transformSync(sample.code, { loader: sample.lang, format: "esm", target: "node20" });
    writeFileSync(join(dir.path, "sample.mjs"), code);
    const r = spawnSync(process.execPath, ["sample.mjs"], { cwd: dir.path, encoding: "utf8", env: sampleEnv(), timeout: 60_000 });
    if (r.error) throw r.error;
    const where = `${sample.file}:${sample.line}\n${r.stdout}`;
    expect(r.stderr, where).toBe("");
    expect(r.status, where).toBe(0);
  });
});
