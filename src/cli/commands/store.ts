// Store-wide commands: `forge init`, `forge gc`, `forge fsck`, `forge session …`.
import { Command } from "commander";
import { readEnv } from "../../core/config.js";
import { ForgeError } from "../../core/errors.js";
import { noun, plural } from "../../core/text.js";
import { run, wholeNumber } from "../command.js";
import { ago, bytes, c, printJson, println } from "../output.js";

const ops = {
  init: () => import("../../operations/store/init.js"),
  store: () => import("../../operations/store/store.js"),
};

export function initCommand(): Command {
  return new Command("init").description("create a Forge store in .forge/ here (SQLite by default)").action(
    run(async (ctx) => {
      // --store is written down for the folder; FORGE_STORE is the environment's, and stays there.
      const fromEnv = readEnv(["FORGE_STORE"])["FORGE_STORE"];
      const store = ctx.global.store ?? (fromEnv || undefined);
      const r = await ctx.call((await ops.init()).initOperation, {
        folder: ".",
        remember: ctx.global.store !== undefined,
        ...(store !== undefined && { store }),
      });
      if (ctx.json) return printJson(r);
      println(`${r.created ? "Initialized empty" : "Reinitialized existing"} Forge store in ${r.dir} (${r.store.split(":")[0]})`);
      if (r.gitWorkTree !== null) println(c.dim(`.forge/ is kept out of git (${r.gitWorkTree}) by .forge/.gitignore`));
    }),
  );
}

export function gcCommand(): Command {
  return new Command("gc")
    .description("delete stored objects no checkpoint uses any more")
    .option("--grace <minutes>", "keep objects written in the last N minutes (writers in flight may need them)", wholeNumber, 10)
    .option("--dry-run", "count what would be deleted, delete nothing")
    .action(
      run(async (ctx, opts: { grace: number; dryRun?: boolean }) => {
        const r = await ctx.call((await ops.store()).gcOperation, { graceMinutes: opts.grace, dryRun: opts.dryRun === true });
        if (ctx.json) return printJson(r);
        println(
          `${r.dryRun ? "would delete" : "deleted"} ${plural(r.deleted, "object")} (${bytes(r.bytesFreed)}); ${r.live} in use${r.young ? `, ${r.young} unused but younger than ${opts.grace} min` : ""}`,
        );
      }),
    );
}

export function fsckCommand(): Command {
  return new Command("fsck").description("re-hash every object and check every reference; exit 1 if anything is damaged").action(
    run(async (ctx) => {
      const r = await ctx.call((await ops.store()).fsckOperation, {});
      if (ctx.json) printJson(r);
      else {
        println(`${plural(r.objects, "object")} (${bytes(r.bytes)}), ${plural(r.checkpoints, "checkpoint")} checked`);
        for (const x of r.corrupt) println(c.red(`corrupt  ${x.hash}: ${x.error}${x.checkpoints.length ? ` (used by ${x.checkpoints.join(", ")})` : ""}`));
        for (const x of r.missing) println(c.red(`missing  ${x.hash} (needed by ${x.checkpoints.join(", ")})`));
        for (const p of r.problems) println(c.red(`broken   ${p}`));
        println(r.ok ? c.green("ok: the store is whole") : c.red("damaged: see above"));
      }
      if (!r.ok) process.exitCode = 1;
    }),
  );
}

export function duCommand(): Command {
  return new Command("du").description("what the store holds: objects, bytes, and what each session's checkpoints added; what gc would free").action(
    run(async (ctx) => {
      const r = await ctx.call((await ops.store()).usageOperation, {});
      if (ctx.json) return printJson(r);
      println(`${r.store}: ${plural(r.objects, "object")}, ${bytes(r.bytes)}`);
      for (const s of r.sessions)
        println(
          `  ${c.cyan(s.name.padEnd(24))} ${String(s.checkpoints).padStart(6)} ${noun(s.checkpoints, "checkpoint").padEnd(11)}  ${bytes(s.bytesAdded).padStart(10)} added`,
        );
      println(`gc would free ${plural(r.gcWouldFree.objects, "object")} (${bytes(r.gcWouldFree.bytes)})${r.gcWouldFree.objects ? "; run `forge gc`" : ""}`);
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
        const r = await ctx.call((await ops.store()).sessionListOperation, {});
        if (ctx.json) return printJson(r);
        if (r.sessions.length === 0) return println(c.dim("no sessions yet"));
        for (const s of r.sessions)
          println(
            `${c.cyan(s.name.padEnd(24))} ${s.kind.padEnd(12)} ${String(s.checkpoints).padStart(5)} ${noun(s.checkpoints, "checkpoint").padEnd(11)}  ${c.dim(`created ${ago(s.createdAt)}`)}`,
          );
      }),
    );
  cmd
    .command("create")
    .description("create a session")
    .argument("<name>", "session name")
    .option("--kind <kind>", "what it holds", "generic")
    .action(
      run(async (ctx, name: string, opts: { kind: string }) => {
        const info = await ctx.call((await ops.store()).sessionCreateOperation, { name, kind: opts.kind });
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
        if (!opts.yes) throw new ForgeError("INVALID_ARGUMENT", `deleting session "${name}" removes all its checkpoints`, { hint: "add --yes to do it" });
        const r = await ctx.call((await ops.store()).sessionDeleteOperation, { name });
        if (ctx.json) return printJson(r);
        println(`deleted session ${name}`);
      }),
    );
  return cmd;
}
