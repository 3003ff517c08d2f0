// A recovery point: the latest checkpoint and the steps to resume from it in a fresh
// context — the code to restore (commit and patch), the environment, the commands to
// replay, and instructions.
import type { Checkpoint } from "../../timeline/types.js";
import type { ReasoningState } from "./model.js";

export interface RecoveryPoint {
  readonly checkpoint: Checkpoint;
  /** The session's most recent commands (up to 20), oldest first. */
  readonly recentCommands: readonly {
    readonly id: string;
    readonly command: string;
    readonly cwd: string;
    readonly exitCode: number | null;
    readonly at: string;
  }[];
  readonly steps: readonly { readonly title: string; readonly commands: readonly string[]; readonly note?: string }[];
  /** The patch to apply after checking out the commit, if there were uncommitted changes. */
  readonly patch: string | null;
}

function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

export function recoveryPoint(checkpoint: Checkpoint, state: ReasoningState, session: string): RecoveryPoint {
  const steps: { title: string; commands: string[]; note?: string }[] = [];
  steps.push({
    title: "Bring back the reasoning state",
    commands: [`forge --session ${shellQuote(session)} checkpoint restore ${checkpoint.id.slice(0, 12)}`, `forge --session ${shellQuote(session)} brief`],
  });
  const code = state.code;
  let patch: string | null = null;
  if (code?.root && code.commit) {
    const cmds = [`cd ${shellQuote(code.root)}`, `git checkout ${code.commit}`];
    if (code.patch) {
      patch = code.patch;
      cmds.push("git apply forge-recovery.patch   # the patch printed below (or: forge recover --patch > forge-recovery.patch)");
    }
    steps.push({
      title: "Restore the code",
      commands: cmds,
      ...(code.patchTruncated && { note: "the patch was over 1 MB and was cut; the rest of the uncommitted changes are not recorded" }),
      ...(code.untracked.length > 0 && {
        note: `${code.untracked.length} untracked files were not recorded: ${code.untracked.slice(0, 5).join(", ")}${code.untracked.length > 5 ? ", …" : ""}`,
      }),
    });
  }
  const env = Object.entries(code?.env ?? {});
  if (env.length > 0) steps.push({ title: "Set the environment", commands: env.map(([k, v]) => `export ${k}=${shellQuote(v)}`) });
  // The last commands are the work in flight; the agent picks the ones to run again.
  const replay = state.commands.slice(-10);
  if (replay.length > 0) {
    steps.push({
      title: "Replay the commands you need (the last ones run through forge)",
      commands: replay.map((c) => `(cd ${shellQuote(c.cwd)} && ${c.command.map(shellQuote).join(" ")})   # exit ${c.exitCode ?? c.error ?? "?"}`),
    });
  }
  const open = state.hypotheses.filter((h) => h.status === "testing" || h.status === "proposed").sort((a, b) => b.confidence - a.confidence);
  const gaps = state.gaps.filter((g) => g.status === "open");
  const next: string[] = [];
  if (open[0]) next.push(`continue testing ${open[0].id}: ${open[0].statement}`);
  if (gaps[0]) next.push(`answer ${gaps[0].id}: ${gaps[0].question}`);
  const failed = state.verifications.filter((v) => !v.passed).at(-1);
  if (failed) next.push(`the last failing check was "${failed.name}": ${failed.command.join(" ")}`);
  steps.push({ title: "Then", commands: [], note: next.length ? next.join("; ") : "read the brief and pick the next question" });
  const recentCommands = state.commands.slice(-20).map((c) => ({ id: c.id, command: c.command.join(" "), cwd: c.cwd, exitCode: c.exitCode, at: c.at }));
  return { checkpoint, recentCommands, steps, patch };
}
