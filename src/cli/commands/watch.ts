// `forge watch`: a long-lived process that checkpoints a session on a schedule and, with
// --files, snapshots the workspace after each burst of edits. One line per action on
// stdout (JSON lines with --json). The first SIGINT/SIGTERM lets the write in progress
// finish and exits 0; a second one exits at once.
import { Command, InvalidArgumentError as CommanderArgumentError, Option } from "commander";
import { plural } from "../../core/text.js";
import { parseDuration } from "../../core/time.js";
import { STRATEGIES, type Strategy } from "../../operations/files/shared.js";
import { DEFAULT_EVERY_MS, DEFAULT_QUIET_MS, DEFAULT_RESCAN_MS } from "../../operations/watch/defaults.js";
import type { WatchEventJson, WatchHandle } from "../../operations/watch/watch.js";
import { run } from "../command.js";
import { c, localTime, println, shortId, whenStdoutCloses } from "../output.js";

/** A commander parser for durations ("2s", "10m"); "off" or "0" where `off` allows it. */
function duration(option: string, min: number, off = false) {
  return (value: string): number => {
    if (off && (value === "off" || value === "0")) return 0;
    let ms: number;
    try {
      ms = parseDuration(value);
    } catch {
      throw new CommanderArgumentError(`"${value}" is not a duration (write "500ms", "2s", "10m", "1h"${off ? ', or "off"' : ""})`);
    }
    if (ms < min) throw new CommanderArgumentError(`${option} must be at least ${min} ms`);
    return ms;
  };
}

/** "10m", "2s", "500ms": a duration as the options take it. */
function span(ms: number): string {
  for (const [unit, size] of [
    ["h", 3_600_000],
    ["m", 60_000],
    ["s", 1000],
  ] as const)
    if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  return ms < 1000 ? `${ms}ms` : `${(ms / 1000).toFixed(1)}s`;
}

interface WatchFlags {
  every: number;
  files?: boolean;
  quietPeriod: number;
  rescan: number;
  strategy: Strategy;
  root?: string;
  filesSession?: string;
}

export function watchCommand(): Command {
  return new Command("watch")
    .description(
      "a long-lived process: checkpoint the session on a schedule when its state changed, and with --files snapshot the workspace after each burst of edits",
    )
    .addOption(
      new Option("--every <duration>", "how often to checkpoint if something changed")
        .argParser(duration("--every", 100))
        .default(DEFAULT_EVERY_MS, span(DEFAULT_EVERY_MS)),
    )
    .option("--files", "also follow the workspace's files and snapshot them when edits go quiet")
    .addOption(
      new Option("--quiet-period <duration>", "how long the files must stay unchanged before a snapshot")
        .argParser(duration("--quiet-period", 0))
        .default(DEFAULT_QUIET_MS, span(DEFAULT_QUIET_MS)),
    )
    .addOption(
      new Option("--rescan <duration>", 'how often to walk the whole workspace for changes the file watches missed ("off": never)')
        .argParser(duration("--rescan", 1000, true))
        .default(DEFAULT_RESCAN_MS, span(DEFAULT_RESCAN_MS)),
    )
    .addOption(new Option("--strategy <s>", "what to do with file changes made outside the agent").choices(STRATEGIES).default("warn"))
    .option("--root <dir>", "the workspace folder for --files (default: the folder holding .forge, else the current one)")
    .option("--files-session <name>", 'the session holding the snapshots (default "workspace")')
    .action(
      run(async (ctx, flags: WatchFlags) => {
        const { startWatch } = await import("../../operations/watch/watch.js");
        const print = ctx.json ? (e: WatchEventJson) => println(JSON.stringify(e)) : (e: WatchEventJson) => println(eventLine(e));
        // Signals are taken over before the watcher starts: its first line may already be read.
        let watcher: WatchHandle | undefined;
        let signalled: NodeJS.Signals | undefined;
        let finish: (() => void) | undefined;
        const onSignal = (signal: NodeJS.Signals) => {
          if (signalled !== undefined) {
            // Second signal: out now. A write cut short is rolled back by the store; never half a checkpoint.
            watcher?.releaseLocks();
            const at = new Date();
            const reason = `${signal} again: exited at once`;
            println(
              ctx.json
                ? JSON.stringify({ event: "stopped", at: at.toISOString(), reason, immediate: true })
                : `${c.dim(localTime(at).slice(11))} ${c.red("stopped")}: ${reason}`,
            );
            process.exit(128 + (signal === "SIGINT" ? 2 : 15));
          }
          signalled = signal;
          if (watcher) void watcher.stop(signal).then(() => finish?.());
        };
        process.on("SIGINT", onSignal);
        process.on("SIGTERM", onSignal);
        // A reader that goes away (`forge watch | head`) stops the watcher as a signal does.
        const unguard = whenStdoutCloses(() => onSignal("SIGPIPE"));
        try {
          watcher = await startWatch(ctx, {
            files: flags.files === true,
            everyMs: flags.every,
            quietMs: flags.quietPeriod,
            rescanMs: flags.rescan,
            strategy: flags.strategy,
            ...(flags.root !== undefined && { root: flags.root }),
            ...(flags.filesSession !== undefined && { filesSession: flags.filesSession }),
            onEvent: print,
          });
          const w = watcher;
          await new Promise<void>((resolve) => {
            finish = resolve;
            // A signal that came while the watcher was starting stops it now.
            if (signalled !== undefined) void w.stop(signalled).then(() => resolve());
          });
        } finally {
          unguard();
          process.off("SIGINT", onSignal);
          process.off("SIGTERM", onSignal);
        }
      }),
    );
}

function eventLine(e: WatchEventJson): string {
  const time = c.dim(localTime(e.at).slice(11));
  switch (e.event) {
    case "started": {
      const files =
        e.root === null
          ? ""
          : `; files in ${e.root} (${plural(e.folders, "folder")}, quiet period ${span(e.quietMs)}, ${e.rescanMs > 0 ? `full rescan every ${span(e.rescanMs)}` : "no rescan"}, strategy ${e.strategy})`;
      return `${time} ${c.green("watching")} session "${e.session}" every ${span(e.everyMs)}${files}; pid ${e.pid}, Ctrl-C stops`;
    }
    case "snapshot": {
      const n = e.changes;
      const counts =
        [n.created && `${n.created} created`, n.modified && `${n.modified} modified`, n.deleted && `${n.deleted} deleted`, n.renamed && `${n.renamed} renamed`]
          .filter(Boolean)
          .join(", ") || "folders changed";
      const shown = e.paths.slice(0, 3).join(", ") + (e.paths.length > 3 ? ", …" : "");
      const why =
        e.cause === "startup"
          ? " (changed while nobody watched)"
          : e.cause === "rescan"
            ? " (found by the full rescan)"
            : ` (${plural(e.events, "file event")}, ${e.ms} ms)`;
      const ext = e.external ? `; outside changes first as #${e.external.seq} ${shortId(e.external.id)}` : "";
      const unknown = e.unknown.length > 0 && !e.external ? c.yellow(`; ${e.unknown.length} changed outside the agent`) : "";
      return `${time} ${c.green("snapshot")} ${c.bold(`#${e.snapshot.seq}`)} ${c.yellow(shortId(e.snapshot.id))}: ${counts}${shown ? ` — ${shown}` : ""}${why}${ext}${unknown}`;
    }
    case "checkpoint":
      return `${time} ${c.green("checkpoint")} ${c.bold(`#${e.checkpoint.seq}`)} ${c.yellow(shortId(e.checkpoint.id))} (scheduled): ${e.reasons.map((r) => (r === "state" ? "state changed" : "files changed")).join(", ")}`;
    case "skipped":
      return `${time} ${c.dim(`skipped ${e.what}: ${e.reason}`)}`;
    case "error":
      return `${time} ${c.red(`error (${e.what})`)}: ${e.message}${e.hint ? ` (${e.hint})` : ""}`;
    case "stopping":
      return `${time} ${c.yellow("stopping")} (${e.reason}): finishing the ${e.finishing} in progress; the same signal again exits at once`;
    case "stopped":
      return `${time} ${c.green("stopped")} (${e.reason}): ${plural(e.snapshots, "snapshot")}, ${plural(e.checkpoints, "checkpoint")}${e.errors ? `, ${plural(e.errors, "error")}` : ""}`;
  }
}
