// `forge search` end to end: a real process on a real SQLite store, filled through the CLI as
// an agent fills it (notes, hypotheses, a chat, a snapshot of files), then searched — the
// text and --json output, --first and --last, the filters, --reindex, usage errors, and a
// store written before the index existed.
import Database from "better-sqlite3";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { fails, forge as runForge, initStore, json, ok, type Run } from "../support/cli.js";
import { requireBuiltLibrary } from "../support/processes.js";
import { makeTempDir } from "../support/temp.js";

interface Cp {
  id: string;
  seq: number;
  session: string;
  time: string;
}
interface Hit {
  checkpoint: Cp;
  first: Cp;
  last: Cp;
  kind: string;
  where: string;
  snippet: string;
  highlights: [number, number][];
}
interface Result {
  query: string | null;
  order: string;
  results: Hit[];
  indexed: number;
  index?: { engine: string; docs: number; postings: number; checkpoints: number };
}

const PHRASE = "connection pool exhausted under burst load";
let dir: string;
const ids: string[] = [];
const forge = (...args: string[]): Run => runForge(dir, args);

beforeAll(async () => {
  requireBuiltLibrary();
  dir = makeTempDir("search-cli").path;
  await initStore(dir);
  const steps = [
    ["note", "started looking at the 502s on the api gateway"],
    ["note", "latency spikes line up with the nightly batch"],
    ["hypothesis", "add", PHRASE, "--confidence", "0.6"],
    ["note", "raised max connections from 20 to 50"],
    ["note", "the 502s are gone after the change"],
  ];
  for (const [k, step] of steps.entries()) {
    ok(forge(...step));
    ids.push(json<{ checkpoint: { id: string } }>(forge("checkpoint", "create", `step ${k + 1}`, "--json")).checkpoint.id);
  }
}, 60_000);

describe("forge search", () => {
  it("finds a phrase where it is and says where, with a highlighted snippet", () => {
    const r = json<Result>(forge("search", "pool", "exhausted", "--json"));
    expect(r.order).toBe("relevance");
    const hit = r.results.find((h) => h.kind === "reasoning");
    expect(hit).toMatchObject({ where: "hypotheses[0].statement", first: { id: ids[2], seq: 3 }, last: { id: ids[4], seq: 5 } });
    const [a, b] = hit?.highlights[0] ?? [0, 0];
    expect(hit?.snippet.slice(a, b).toLowerCase()).toMatch(/^(pool|exhausted)$/);
    expect(JSON.stringify(r)).not.toContain(ids[0]);
  });

  it("--first names the checkpoint where the text first appeared", () => {
    const r = json<Result>(forge("search", "pool exhausted", "--first", "--json"));
    expect(r.results[0]?.checkpoint).toMatchObject({ id: ids[2], seq: 3, session: "default" });
    const text = ok(forge("search", "pool exhausted", "--first"));
    expect(text).toMatch(/^default #3 {2}\S+ {2}.+ago {2}reasoning {2}hypotheses\[0\]\.statement$/m);
    expect(text).toContain(PHRASE);
    expect(text).toMatch(/from #3 \(.+\) to #5/);
  });

  it("--last names the last checkpoint that held it", () => {
    const r = json<Result>(forge("search", '"raised max connections"', "--last", "--json"));
    expect(r.results[0]?.checkpoint.seq).toBe(5);
  });

  it("prints no matches and exits 0 when nothing matches; --json gives an empty list", () => {
    expect(ok(forge("search", "quokka", "marmalade"))).toBe("no matches\n");
    expect(json<Result>(forge("search", "quokka", "--json")).results).toEqual([]);
  });

  it("filters by session, kind and time", () => {
    expect(json<Result>(forge("search", "pool", "--session", "default", "--json")).results.length).toBeGreaterThan(0);
    fails(forge("search", "pool", "--session", "nope"), 1, /no session named "nope"/);
    expect(json<Result>(forge("search", "pool", "--kind", "conversation", "--json")).results).toEqual([]);
    expect(json<Result>(forge("search", "step", "--kind", "messages", "--json")).results.map((h) => h.checkpoint.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(json<Result>(forge("search", "pool", "--since", "1 hour ago", "--json")).results.length).toBeGreaterThan(0);
    expect(json<Result>(forge("search", "pool", "--until", "2020-01-01", "--json")).results).toEqual([]);
    fails(forge("search", "pool", "--since", "tomorrow"), 1, /future/);
    fails(forge("search", "pool", "--kind", "spreadsheets"), 1, /no kind "spreadsheets"/);
  });

  it("finds chat messages and the text files of a snapshot", () => {
    ok(forge("--session", "talk", "chat", "new"));
    ok(forge("--session", "talk", "chat", "append", "--role", "assistant", "found it: tensor shape mismatch in layer 12"));
    const saved = json<{ checkpoint: { id: string } }>(forge("--session", "talk", "chat", "save", "--json")).checkpoint.id;
    mkdirSync(join(dir, "src"), { recursive: true });
    writeFileSync(join(dir, "src", "retry.ts"), "export const codes = [\n  'ETIMEDOUT',\n  'ECONNRESET',\n];\n");
    ok(forge("files", "snapshot"));
    const chat = json<Result>(forge("search", '"tensor shape mismatch"', "--json")).results;
    expect(chat.map((h) => [h.kind, h.checkpoint.id])).toEqual([["conversation", saved]]);
    const files = json<Result>(forge("search", "ECONNRESET", "--kind", "files", "--json")).results;
    expect(files.map((h) => [h.kind, h.where, h.checkpoint.session])).toEqual([["files", "src/retry.ts:3", "workspace"]]);
  });

  it("usage errors exit 2", () => {
    fails(forge("search"), 2, /give something to search for/);
    fails(forge("search", "x", "--first", "--last"), 2, /cannot be used together/);
    fails(forge("search", "--limit", "0", "pool"), 2, /--limit/);
  });

  it("--reindex rebuilds the index and says how big it is", () => {
    const r = json<Result>(forge("search", "--reindex", "--json"));
    expect(r.query).toBeNull();
    expect(r.index).toMatchObject({ engine: "sqlite-fts5" });
    expect(r.index?.checkpoints).toBe(r.indexed);
    expect(r.indexed).toBeGreaterThanOrEqual(7);
    expect(ok(forge("search", "--reindex"))).toMatch(/^indexed \d+ checkpoints: \d+ documents, \d+ postings\n$/);
    expect(json<Result>(forge("search", "pool", "exhausted", "--first", "--json")).results[0]?.checkpoint.seq).toBe(3);
  });
});

describe("a store written before the search index", () => {
  it("is migrated and indexed by its first search", async () => {
    const old = makeTempDir("search-old").path;
    await initStore(old);
    const f = (...args: string[]) => runForge(old, args);
    ok(f("note", "the ECONNRESET storm started at 09:12"));
    ok(f("checkpoint", "create", "first"));
    ok(f("note", "it stopped after the deploy"));
    ok(f("checkpoint", "create", "second"));
    // What a Forge before migration 4 left: no search tables, user_version 3.
    const db = new Database(join(old, ".forge", "forge.db"));
    db.exec("DROP TABLE search_marks; DROP TABLE search_postings; DROP TABLE search_words; DROP TABLE search_docs;");
    db.pragma("user_version = 3");
    db.close();
    const r = json<Result>(f("search", "ECONNRESET", "--first", "--json"));
    expect(r.indexed).toBe(2);
    expect(r.results[0]?.checkpoint.seq).toBe(1);
    expect(json<Result>(f("search", "ECONNRESET", "--json")).indexed).toBe(0);
  });
});
