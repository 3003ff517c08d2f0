// Hostile bundles where a user meets them: `forge checkpoint import FILE` in a real process on
// a real SQLite store. Each is refused with one clear `forge: …` line naming the record or
// object and the rule — no stack, no TypeError — the store is left as it was and `forge
// fsck` finds it whole. The bomb is also held to a memory bound (the child's peak RSS).
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { forge as runForge, type Run } from "../support/cli.js";
import { makeTempDir, type TempDir } from "../support/temp.js";
import { bomb, decode, dirEntries, dirText, encode, record, records, stored, withBigFile, withEnd, type LooseManifest } from "./bundle-support.js";

const PEAK_RSS = resolve(__dirname, "bundle-peak-rss.cjs");

/** `forge ARGS` in `cwd`, with a two-minute limit (a bomb that is not refused would take longer). */
function forge(cwd: string, args: string[], env: Record<string, string> = {}, nodeArgs: string[] = []): Run {
  return runForge(cwd, args, { env, nodeArgs, timeoutMs: 120_000 });
}

let tmp: TempDir;
let n = 0;
const bundles: { workspace: Buffer; state: Buffer } = { workspace: Buffer.alloc(0), state: Buffer.alloc(0) };

beforeAll(() => {
  tmp = makeTempDir("bundle-cli");
  const origin = join(tmp.path, "origin");
  mkdirSync(join(origin, "src"), { recursive: true });
  writeFileSync(join(origin, "readme.md"), "# origin\n");
  writeFileSync(join(origin, "src", "main.txt"), "MAIN\n");
  symlinkSync("src/main.txt", join(origin, "main-link"));
  expect(forge(origin, ["init"]).code).toBe(0);
  expect(forge(origin, ["files", "snapshot", "origin tree"]).code).toBe(0);
  writeFileSync(join(origin, "s.json"), JSON.stringify({ peer: { n: 2 }, title: "plain" }));
  expect(forge(origin, ["checkpoint", "create", "plain", "--state", "s.json"]).code).toBe(0);
  writeFileSync(join(origin, "s.json"), JSON.stringify({ peer: { n: 2 }, title: "second" }));
  expect(forge(origin, ["checkpoint", "create", "second", "--state", "s.json"]).code).toBe(0);
  for (const [session, key] of [
    ["workspace", "workspace"],
    ["default", "state"],
  ] as const) {
    const file = join(tmp.path, `${session}.bundle`);
    expect(forge(origin, ["checkpoint", "export", "--session", session, "--output", file]).code).toBe(0);
    bundles[key] = readFileSync(file);
  }
});

afterAll(() => tmp.remove());

/** A fresh store; imports `bytes` into it and returns the run, the store's folder and what `session list` said before. */
function importInto(bytes: Buffer, options: { env?: Record<string, string>; node?: string[] } = {}): Run & { dir: string } {
  const dir = join(tmp.path, `target-${++n}`);
  mkdirSync(dir);
  expect(forge(dir, ["init"]).code).toBe(0);
  const file = join(dir, "in.bundle");
  writeFileSync(file, bytes);
  return { ...forge(dir, ["checkpoint", "import", file], options.env, options.node), dir };
}

/** Refused with one clear line, nothing imported, and the store whole. */
function expectRefused(r: Run & { dir: string }, message: RegExp): void {
  expect(r.code, r.stderr).toBe(1);
  expect(r.stderr).toMatch(/^forge: not a valid Forge bundle: /);
  expect(r.stderr).toMatch(message);
  expect(r.stderr).not.toMatch(/^\s+at .+:\d+:\d+\)?$|internal error|TypeError|RangeError/m);
  const list = JSON.parse(forge(r.dir, ["session", "list", "--json"]).stdout) as { sessions: unknown[] };
  expect(list.sessions).toEqual([]);
  const fsck = forge(r.dir, ["fsck"]);
  expect(fsck.code, fsck.stdout + fsck.stderr).toBe(0);
}

describe("forge checkpoint import of a hostile bundle", () => {
  it("imports the honest bundles the others are made from (a workspace with a symlink, states)", () => {
    for (const b of [bundles.workspace, bundles.state]) {
      const r = importInto(b);
      expect(r.code, r.stderr).toBe(0);
      expect(forge(r.dir, ["fsck"]).code).toBe(0);
    }
  });

  it("refuses a 0.6 MB bundle whose one object inflates to 640 MiB, naming it and the limit, with peak RSS under 512 MB", () => {
    const b = bomb(640);
    const bytes = withBigFile(bundles.workspace, b);
    expect(bytes.length).toBeLessThan(1_000_000);
    const peakFile = join(tmp.path, "peak-rss");
    rmSync(peakFile, { force: true });
    const r = importInto(bytes, { env: { FORGE_TEST_PEAK_RSS_FILE: peakFile }, node: ["--require", PEAK_RSS] });
    expectRefused(r, new RegExp(`object ${b.hash} is corrupt: it holds more than 1 MiB \\+ 1 byte, the most a file's bytes or chunk may hold`));
    const peakKb = Number(readFileSync(peakFile, "utf8"));
    expect(peakKb).toBeGreaterThan(0);
    expect(peakKb).toBeLessThan(512 * 1024);
  });

  it("refuses a record whose length runs past the end of the file, naming its offset", () => {
    const recs = records(bundles.workspace);
    const last = recs.filter((r) => r.kind === "O").at(-1);
    if (!last) throw new Error("no object record");
    const past = Buffer.from(bundles.workspace);
    past.writeUInt32BE(bundles.workspace.length - (last.at + 5) + 9, last.at + 1);
    expectRefused(importInto(past), new RegExp(`truncated: the record at byte ${last.at} says it holds \\d+ bytes, but only \\d+ remain`));
    const huge = Buffer.from(bundles.workspace);
    huge.writeUInt32BE(0xffffffff, last.at + 1);
    expectRefused(importInto(huge), new RegExp(`the record at byte ${last.at} says it holds 4294967295 bytes`));
  });

  it("refuses an object record shorter than a hash and a codec byte, naming its offset", () => {
    const first = records(bundles.workspace).find((r) => r.kind === "O");
    if (!first) throw new Error("no object record");
    const short = Buffer.from(bundles.workspace);
    short.writeUInt32BE(20, first.at + 1);
    expectRefused(importInto(short), new RegExp(`the object record at byte ${first.at} holds 20 bytes, fewer than the 33 of a hash and a codec byte`));
  });

  it("refuses a record whose length is one byte short, even with a checksum made to match", () => {
    const body = bundles.state.subarray(0, bundles.state.length - 37);
    const first = records(bundles.state).find((r) => r.kind === "O");
    if (!first) throw new Error("no object record");
    const lying = Buffer.from(body);
    lying.writeUInt32BE(first.payload.length - 1, first.at + 1);
    expectRefused(importInto(withEnd(lying)), /record|object/);
  });

  it("refuses a second manifest and bytes after the end record", () => {
    const { manifest, objects } = decode(bundles.state);
    const body = encode(manifest, objects).subarray(0, -37);
    const twice = withEnd(Buffer.concat([body, record("M", Buffer.from(JSON.stringify(manifest)))]));
    expectRefused(importInto(twice), /it has a second manifest, at byte \d+ \(the first is at byte 15\)/);
    expectRefused(importInto(Buffer.concat([bundles.state, Buffer.from("x")])), /it has 1 bytes after its end record/);
  });

  for (const [field, edit] of [
    ["sessions[0].checkpoints", (m: LooseManifest) => void ((m.sessions[0] as Record<string, unknown>)["checkpoints"] = 3)],
    ["sessions[0].checkpoints[0].tags", (m: LooseManifest) => void ((m.sessions[0]?.checkpoints[0] as Record<string, unknown>)["tags"] = 17)],
    ["sessions[0].branches", (m: LooseManifest) => void ((m.sessions[0] as Record<string, unknown>)["branches"] = "main")],
    ["sessions", (m: LooseManifest) => void ((m as Record<string, unknown>)["sessions"] = { 0: {} })],
  ] as const) {
    it(`refuses a manifest with ${field} of the wrong type, naming the field`, () => {
      const { manifest, objects } = decode(bundles.state);
      edit(manifest);
      const r = importInto(encode(manifest, objects));
      expectRefused(r, /its manifest is malformed/);
      expect(r.stderr).toContain(`at ${field}`);
    });
  }

  it("refuses a manifest that is not JSON, or nests past its limit, naming the byte", () => {
    const { objects } = decode(bundles.state);
    expectRefused(importInto(encode('{"format":"forge-bundle",', objects)), /its manifest \(the record at byte 15\) is not JSON: the text ends inside a value/);
    expectRefused(importInto(encode("[".repeat(5000) + "]".repeat(5000), objects)), /its manifest \(the record at byte 15\) nests more than 1000 levels deep/);
  });

  it("refuses a bundle whose tree needs an object that is neither in it nor in the store, naming it", () => {
    const { manifest, objects } = decode(bundles.workspace);
    const root = manifest.sessions[0]?.checkpoints.at(-1)?.filesRoot as string;
    const file = dirEntries(objects.get(root) as Buffer).find((e) => e[1] === "readme.md");
    const gone = file?.[0] as string;
    objects.delete(gone);
    expectRefused(
      importInto(encode(manifest, objects)),
      new RegExp(`1 object\\(s\\) its checkpoints need are neither in it nor in this store, e.g. ${gone} \\(listed by object ${root}\\)`),
    );
  });

  it("refuses a state tree whose reference path runs through __proto__, naming the path", () => {
    const { manifest, objects } = decode(bundles.state);
    const all = new Map(objects);
    const add = (text: string): string => {
      const [h, s] = stored(Buffer.from(text));
      all.set(h, s);
      return h;
    };
    const value = add('j[]\n"armed"');
    const root = add(`j${JSON.stringify([[value, "cfg", "__proto__", "polluted"]])}\n{"cfg":{"level":1}}`);
    (manifest.sessions[0]?.checkpoints.at(-1) as { stateRoot: string }).stateRoot = root;
    const r = importInto(encode(manifest, all));
    expectRefused(r, new RegExp(`object ${root} is corrupt: its child reference \\["cfg","__proto__","polluted"\\] leads to nothing in its body`));
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
  });

  it("refuses a folder that lists one name twice (a file and a symlink), naming the name", () => {
    const { manifest, objects } = decode(bundles.workspace);
    const all = new Map(objects);
    const [memo, memoStored] = stored(Buffer.from("bMEMO\n"));
    all.set(memo, memoStored);
    const cp = manifest.sessions[0]?.checkpoints.at(-1) as { filesRoot: string };
    const entries = [...dirEntries(objects.get(cp.filesRoot) as Buffer), [memo, "memo.txt", "f", 0o600, 5], ["", "memo.txt", "l", 0o777, 9, "readme.md"]];
    entries.sort((a, b) => ((a[1] as string) < (b[1] as string) ? -1 : (a[1] as string) > (b[1] as string) ? 1 : 0));
    const [root, rootStored] = stored(dirText(entries));
    all.set(root, rootStored);
    cp.filesRoot = root;
    expectRefused(importInto(encode(manifest, all)), /its folder lists "memo.txt" twice/);
  });

  it("refuses a files root that is not a folder, and a file whose bytes are not the size its folder says", () => {
    const { manifest, objects } = decode(bundles.workspace);
    const cp = manifest.sessions[0]?.checkpoints.at(-1) as { id: string; seq: number; stateRoot: string; filesRoot: string };
    const notDir = { ...cp, filesRoot: cp.stateRoot };
    const m1 = structuredClone(manifest);
    (m1.sessions[0] as { checkpoints: unknown[] }).checkpoints = [...(m1.sessions[0]?.checkpoints.slice(0, -1) ?? []), notDir];
    expectRefused(
      importInto(encode(m1, objects)),
      new RegExp(`checkpoint ${cp.id} \\(#${cp.seq} of session "workspace"\\) lists ${cp.stateRoot} as a folder, but it is a JSON \\(j\\) node`),
    );

    const all = new Map(objects);
    const entries = dirEntries(objects.get(cp.filesRoot) as Buffer).map((e) => (e[1] === "readme.md" ? [e[0], e[1], e[2], e[3], 4096] : e));
    const [root, rootStored] = stored(dirText(entries));
    all.set(root, rootStored);
    cp.filesRoot = root;
    expectRefused(importInto(encode(manifest, all)), new RegExp(`object ${root} lists [0-9a-f]{64} as a file of 4096 bytes, but it holds 9 bytes`));
  });
});
