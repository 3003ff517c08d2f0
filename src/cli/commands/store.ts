// Store-wide commands: `forge init`, `forge gc`, `forge fsck`, `forge session …`.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { Command } from "commander";
import { DEFAULT_DB, FORGE_DIR } from "../../core/config.js";
import { ForgeError } from "../../core/errors.js";
import { run, wholeNumber } from "../command.js";
import { ago, bytes, c, printJson, println } from "../output.js";
import { progressBar } from "../progress.js";

export function initCommand(): Command {
  return new Command("init")
    .description("create a Forge store in .forge/ here (SQLite by default)")
    .action(
      run(async (ctx) => {
        const dir = resolve(FORGE_DIR);
        const existed = existsSync(dir);
        mkdirSync(dir, { recursive: true });
        const url = ctx.options.store ?? `sqlite:${join(dir, DEFAULT_DB)}`;
        // Opening creates the database (or schema) and applies migrations. Only once that
        // worked is the URL written down, so a typo never becomes this folder's store.
        try {
          const { openStore } = await import("../../timeline/store.js");
          const store = await openStore(url);
          await store.close();
        } catch (e) {
          if (!existed) rmSync(dir, { recursive: true, force: true });
          throw e;
        }
        if (ctx.options.store !== undefined) writeStoreToConfig(dir, url);
        if (ctx.json) return printJson({ dir, store: url, created: !existed });
        println(`${existed ? "Reinitialized existing" : "Initialized empty"} Forge store in ${dir} (${url.split(":")[0]})`);
      }),
    );
}

/** Sets "store" in .forge/config.json, keeping every other setting; written whole or not at all. */
function writeStoreToConfig(dir: string, url: string): void {
  const path = join(dir, "config.json");
  let config: Record<string, unknown> = {};
  if (existsSync(path)) {
    try {
      const parsed: unknown = JSON.parse(readFileSync(path, "utf8"));
      if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) config = parsed as Record<string, unknown>;
    } catch (e) {
      throw new ForgeError("INVALID_ARGUMENT", `cannot read ${path}: ${(e as Error).message}`, { hint: "fix or delete the file, then run forge init again" });
    }
  }
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify({ ...config, store: url }, null, 2) + "\n");
  renameSync(tmp, path);
}

export function gcCommand(): Command {
  return new Command("gc")
    .description("delete stored objects no checkpoint uses any more")
    .option("--grace <minutes>", "keep objects written in the last N minutes (writers in flight may need them)", wholeNumber, 10)
    .option("--dry-run", "count what would be deleted, delete nothing")
    .action(
      run(async (ctx, opts: { grace: number; dryRun?: boolean }) => {
        const bar = progressBar();
        const r = await (await ctx.store())
          .gc({ graceMs: opts.grace * 60_000, dryRun: opts.dryRun === true, ...(bar.onProgress && { onProgress: bar.onProgress }) })
          .finally(bar.stop);
        if (ctx.json) return printJson(r);
        println(`${r.dryRun ? "would delete" : "deleted"} ${r.deleted} object${r.deleted === 1 ? "" : "s"} (${bytes(r.bytesFreed)}); ${r.live} in use${r.young ? `, ${r.young} unused but younger than ${opts.grace} min` : ""}`);
      }),
    );
}

export function fsckCommand(): Command {
  return new Command("fsck")
    .description("re-hash every object and check every reference; exit 1 if anything is damaged")
    .action(
      run(async (ctx) => {
        const bar = progressBar();
        const r = await (await ctx.store())
          .fsck(bar.onProgress ? { onProgress: bar.onProgress } : {})
          .finally(bar.stop);
        if (ctx.json) printJson(r);
        else {
          println(`${r.objects} objects (${bytes(r.bytes)}), ${r.checkpoints} checkpoints checked`);
          for (const x of r.corrupt) println(c.red(`corrupt  ${x.hash}: ${x.error}${x.checkpoints.length ? ` (used by ${x.checkpoints.join(", ")})` : ""}`));
          for (const x of r.missing) println(c.red(`missing  ${x.hash} (needed by ${x.checkpoints.join(", ")})`));
          for (const p of r.problems) println(c.red(`broken   ${p}`));
          println(r.ok ? c.green("ok: the store is whole") : c.red("damaged: see above"));
        }
        if (!r.ok) process.exitCode = 1;
      }),
    );
}

export function sessionCommand(): Command {
  const cmd = new Command("session").description("list, create and delete sessions");
  cmd
    .command("list")
    .alias("ls")
    .description("list sessions")
    .action(
      run(async (ctx) => {
        const list = await (await ctx.store()).listSessions();
        if (ctx.json) return printJson({ sessions: list });
        if (list.length === 0) return println(c.dim("no sessions yet"));
        for (const s of list) println(`${c.cyan(s.name.padEnd(24))} ${s.kind.padEnd(12)} ${String(s.checkpoints).padStart(5)} checkpoints  ${c.dim(`created ${ago(s.createdAt)}`)}`);
      }),
    );
  cmd
    .command("create")
    .description("create a session")
    .argument("<name>", "session name")
    .option("--kind <kind>", "what it holds", "generic")
    .action(
      run(async (ctx, name: string, opts: { kind: string }) => {
        const s = await (await ctx.store()).createSession(name, { kind: opts.kind });
        const info = await s.info();
        if (ctx.json) return printJson(info);
        println(`created session ${c.cyan(info.name)} (${info.kind})`);
      }),
    );
  cmd
    .command("delete")
    .description("delete a session and its checkpoints (run `forge gc` to free the space)")
    .argument("<name>", "session name")
    .option("--yes", "really delete it")
    .action(
      run(async (ctx, name: string, opts: { yes?: boolean }) => {
        if (!opts.yes) {
          throw new ForgeError("INVALID_ARGUMENT", `deleting session "${name}" removes all its checkpoints`, { hint: "add --yes to do it" });
        }
        await (await ctx.store()).deleteSession(name);
        if (ctx.json) return printJson({ deleted: name });
        println(`deleted session ${name}`);
      }),
    );
  return cmd;
}
