// Redaction where agent data enters a store, through the library: states (the encoder's
// string leaves), checkpoint rows, run-store values, conversation imports and bundles; the
// allow-list from .forge/config.json; and `scanSecrets` over a history.
import { mkdirSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { openStore, type Store } from "../../src/timeline/store.js";
import { RunStore } from "../../src/integrations/runs/run-store.js";
import { makeTempDir, type TempDir } from "../support/temp.js";
import { leaksUnder } from "./leaks.js";

const pick = (alphabet: string, n: number) => [...randomBytes(n)].map((b) => alphabet[b % alphabet.length]).join("");
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const token = () => `ghp_${pick(ALNUM, 36)}`;

let dir: TempDir;
const stores: Store[] = [];
const open = async (options: Parameters<typeof openStore>[1] = {}, name = "forge.db") => {
  const s = await openStore(`sqlite:${join(dir.path, name)}`, { cwd: dir.path, ...options });
  stores.push(s);
  return s;
};

beforeEach(() => {
  dir = makeTempDir("redact");
});
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  dir.remove();
});

describe("a checkpoint", () => {
  it("stores its state, message, tags and metadata with every secret redacted, the rest unchanged", async () => {
    const store = await open();
    const gh = token();
    const session = await store.session("s");
    const cp = await session.checkpoint(
      { notes: [`pushed with ${gh}`, "nothing secret"], env: { DB_URL: "postgres://app:S3cr3tPassw0rd@db/x" } },
      { message: `deploy with ${gh}`, tags: ["deploy"], metadata: { hostSession: `host-${gh}`, n: 3 } },
    );
    expect(await session.state(cp.id)).toEqual({
      notes: ["pushed with [REDACTED:github-pat]", "nothing secret"],
      env: { DB_URL: "postgres://app:[REDACTED:url-password]@db/x" },
    });
    const again = await session.get(cp.id);
    expect(again.message).toBe("deploy with [REDACTED:github-pat]");
    expect(again.metadata).toEqual({ hostSession: "host-[REDACTED:github-pat]", n: 3 });
    await store.close();
    stores.length = 0;
    expect(leaksUnder(dir.path, [gh, "S3cr3tPassw0rd"])).toEqual([]);
  });

  it("scans only the strings that changed since the last write of the session (the encoder memo)", async () => {
    const store = await open();
    const session = await store.session("s");
    const state = { items: Array.from({ length: 500 }, (_, i) => ({ id: i, text: `token budget note ${i}` })) };
    await session.setWorking(state);
    const spy = vi.spyOn(store.redactor, "redact");
    state.items[7] = { id: 7, text: "the api token changed" };
    await session.setWorking(state);
    // The changed string, the changed object's keys and its parents' keys: never the 500 items.
    expect(spy.mock.calls.length).toBeLessThan(20);
    expect(spy.mock.calls.map((c) => c[0])).toContain("the api token changed");
  });

  it("keeps what the allow-list of .forge/config.json allows: a rule, a value, a path", async () => {
    const gh = token();
    mkdirSync(join(dir.path, ".forge"));
    writeFileSync(
      join(dir.path, ".forge", "config.json"),
      JSON.stringify({ redact: { allow: { rules: ["url-password"], values: ["hunter22x"], paths: ["fixtures.**"] } } }),
    );
    const store = await open();
    const session = await store.session("s");
    const cp = await session.checkpoint({
      a: "postgres://app:S3cr3tPassw0rd@db/x",
      b: "DB_PASSWORD=hunter22x",
      fixtures: { github: [gh] },
      c: gh,
    });
    expect(await session.state(cp.id)).toEqual({
      a: "postgres://app:S3cr3tPassw0rd@db/x",
      b: "DB_PASSWORD=hunter22x",
      fixtures: { github: [gh] },
      c: "[REDACTED:github-pat]",
    });
  });

  it("keeps everything when redaction is turned off, and refuses a config it cannot read", async () => {
    const gh = token();
    mkdirSync(join(dir.path, ".forge"));
    writeFileSync(join(dir.path, ".forge", "config.json"), JSON.stringify({ redact: { enabled: false } }));
    const off = await open();
    const cp = await (await off.session("s")).checkpoint({ t: gh });
    expect(await (await off.session("s")).state(cp.id)).toEqual({ t: gh });
    writeFileSync(join(dir.path, ".forge", "config.json"), JSON.stringify({ redact: { allow: { rule: ["x"] } } }));
    await expect(open({}, "other.db")).rejects.toThrow(/"redact\.allow\.rule" is not a setting/);
  });

  it("refuses a session name holding a secret", async () => {
    const store = await open();
    await expect(store.session(`s-${token()}`)).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
  });
});

describe("other ways in", () => {
  it("a run store's value: text redacted, binary data kept byte for byte", async () => {
    const store = await open();
    const runs = new RunStore(store);
    const gh = token();
    await runs.save("r1", "n1", new TextEncoder().encode(JSON.stringify({ token: gh, step: 2 })));
    expect(JSON.parse(new TextDecoder().decode(await runs.load("r1", "n1")))).toEqual({ token: "[REDACTED:github-pat]", step: 2 });
    const binary = new Uint8Array([0xff, 0xfe, ...new TextEncoder().encode(gh)]);
    await runs.save("r1", "n2", binary);
    expect(Buffer.from(await runs.load("r1", "n2")).equals(Buffer.from(binary))).toBe(true);
  });

  it("a history import (a conversation export): states and rows redacted", async () => {
    const store = await open();
    const gh = token();
    const session = await store.importHistory({
      name: "imported",
      kind: "conversation",
      checkpoints: [
        {
          key: "a",
          seq: 1,
          parent: null,
          branch: "main",
          createdAt: 1,
          message: `m ${gh}`,
          tags: [],
          trigger: "manual",
          metadata: { t: gh },
          state: { t: gh },
        },
      ],
      branches: [{ name: "main", checkpoint: "a" }],
      head: { branch: "main" },
    });
    const [cp] = await session.list();
    expect(cp?.message).toBe("m [REDACTED:github-pat]");
    expect(cp?.metadata).toEqual({ t: "[REDACTED:github-pat]" });
    expect(await session.state("HEAD")).toEqual({ t: "[REDACTED:github-pat]" });
  });
});

describe("bundles and scan", () => {
  /** A store made without redaction: a secret in checkpoints 2, 3 and 4 of five. */
  async function leakyStore(gh: string): Promise<Store> {
    const store = await open({ redaction: { enabled: false } }, "leaky.db");
    const session = await store.session("work");
    const notes: string[] = [];
    for (let i = 1; i <= 5; i++) {
      notes.push(i === 2 ? `rotated the key to ${gh}` : `step ${i} of the deploy`);
      await session.checkpoint({ notes: [...notes.slice(i >= 5 ? 2 : 0)], padding: "x".repeat(3000) }, { message: `step ${i}` });
    }
    return store;
  }

  it("scan finds nothing in a clean store", async () => {
    const store = await open();
    await (await store.session("s")).checkpoint({ note: "the retry budget is three attempts" });
    const r = await store.scanSecrets();
    expect(r.findings).toEqual([]);
    expect(r.checkpoints).toBe(1);
  });

  it("scan names the session, the checkpoints, the path and the rule of a secret in history, never the secret", async () => {
    const gh = token();
    const store = await leakyStore(gh);
    const r = await store.scanSecrets();
    expect(JSON.stringify(r)).not.toContain(gh);
    expect(r.findings).toEqual([{ session: "work", where: "state", path: "notes.1", rule: "github-pat", checkpoints: expect.any(Array) }]);
    expect(r.findings[0]?.checkpoints.map((c) => c.seq)).toEqual([2, 3, 4]);
  });

  it("a bundle import redacts what the bundle holds: states encoded again, other content unchanged, fsck clean", async () => {
    const gh = token();
    const leaky = await leakyStore(gh);
    const bundle = (await leaky.export({ session: "work" })).bytes;
    const store = await open();
    const report = await store.import(bundle);
    expect(report.redactedStates).toBe(3);
    const session = await store.getSession("work");
    const [, second, , , fifth] = await session.list();
    expect(await session.state(second?.id as string)).toEqual({
      notes: ["step 1 of the deploy", "rotated the key to [REDACTED:github-pat]"],
      padding: "x".repeat(3000),
    });
    expect(await session.state(fifth?.id as string)).toEqual({
      notes: ["step 3 of the deploy", "step 4 of the deploy", "step 5 of the deploy"],
      padding: "x".repeat(3000),
    });
    expect((await store.scanSecrets()).findings).toEqual([]);
    expect((await store.fsck()).ok).toBe(true);
    // Importing it again finds the same (redacted) checkpoints: nothing new, no conflict.
    expect((await store.import(bundle)).sessions[0]?.checkpoints).toBe(0);
    await store.close();
    await leaky.close();
    stores.length = 0;
    expect(leaksUnder(join(dir.path), [gh]).filter((l) => !l.includes("leaky.db"))).toEqual([]);
  });
});
