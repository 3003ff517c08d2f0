// What acts on the world: run a named check and record pass/fail (`verify`), run a command
// into the session's history (`run`), record the code state (`code capture`). Each runs its
// command once, before the change is saved: a save retried because another process saved
// meanwhile records the same result again, it never runs the command again.
import { readEnv } from "../../core/config.js";
import type { CodeState, CommandRun, Verification } from "../../domains/reasoning/model.js";
import { runCommand, type RunOptions } from "../../domains/reasoning/runner.js";
import type { OperationContext } from "../context.js";
import { defineOperation } from "../operation.js";
import { sessionField } from "../shared.js";
import { change, changeOpen, idField, type Saved } from "./shared.js";

/**
 * Where an interface runs commands and who sees their output: the CLI runs them in the
 * shell's folder and passes their output through to the terminal; the MCP server runs them
 * in the workspace folder and keeps their output to the record (its stdout is the protocol).
 */
export interface CommandPlace {
  /** The folder commands run in (default: the workspace folder: the context's root, else the folder holding .forge). */
  readonly cwd?: string;
  /** Copies a command's output here as it arrives. */
  readonly tee?: RunOptions["tee"];
}

async function folder(ctx: OperationContext, place: CommandPlace): Promise<string> {
  if (place.cwd !== undefined) return place.cwd;
  const { workspaceRoot } = await import("../../domains/workspace/configured.js");
  return workspaceRoot(ctx.options.root === undefined ? {} : { root: ctx.options.root });
}

/** The verify operation for an interface that runs commands at `place`. */
export function verifyOperationAt(place: CommandPlace) {
  return defineOperation({
    name: "verify",
    title: "Run a verification",
    description:
      "RUNS A COMMAND (argv, no shell) in the workspace and records pass/fail, exit code, duration and output as a verification; with `hypothesis`, a pass is supporting evidence and a failure refuting evidence for it.",
    effect: "write",
    openWorld: true,
    input: (z) => ({
      name: z.string().min(1).describe("what is being checked"),
      command: z.array(z.string()).min(1).describe('the command as argv, e.g. ["npm", "test"]'),
      hypothesis: idField(z, "H1, H2, …: attach the result to this hypothesis as evidence").optional(),
      timeoutSeconds: z.number().positive().nullable().default(300).describe("kill the command after this many seconds; null: no limit"),
      session: sessionField(z),
    }),
    run: async (ctx, input): Promise<Verification & Saved> => {
      const rs = await ctx.reasoning(input.session);
      if (input.hypothesis !== undefined) rs.hypotheses.get(input.hypothesis); // an unknown id fails before anything runs
      const cwd = await folder(ctx, place);
      const ran = await runCommand(input.command, {
        cwd,
        ...(input.timeoutSeconds !== null && { timeoutMs: input.timeoutSeconds * 1000 }),
        ...(place.tee && { tee: place.tee }),
      });
      const r = await changeOpen(rs, (s) => s.recordVerification(input.name, input.command, cwd, ran, input.hypothesis));
      return { ...r.result.verification, autoCheckpoint: r.autoCheckpoint };
    },
  });
}

/** `verify` as the MCP server runs it: in the workspace folder, output kept to the record. */
export const verifyOperation = verifyOperationAt({});

/** The run operation for an interface that runs commands at `place`. */
export function commandRunOperationAt(place: CommandPlace) {
  return defineOperation({
    name: "command_run",
    title: "Run a command",
    description: "RUNS A COMMAND (argv, no shell) and records it, its exit status and its output in the session's command history.",
    effect: "write",
    openWorld: true,
    input: (z) => ({ command: z.array(z.string()).min(1).describe('the command as argv, e.g. ["make", "repro"]'), session: sessionField(z) }),
    run: async (ctx, input): Promise<CommandRun & Saved> => {
      const rs = await ctx.reasoning(input.session);
      const cwd = await folder(ctx, place);
      const ran = await runCommand(input.command, { cwd, ...(place.tee && { tee: place.tee }) });
      const r = await changeOpen(rs, (s) => s.recordCommand(input.command, cwd, ran));
      return { ...r.result, autoCheckpoint: r.autoCheckpoint };
    },
  });
}

/** The code-capture operation for an interface whose code is at `place` (its `cwd`). */
export function codeCaptureOperationAt(place: Pick<CommandPlace, "cwd">) {
  return defineOperation({
    name: "code_capture",
    title: "Capture the code state",
    description:
      "Records the git commit, branch, uncommitted changes (as a patch) and untracked files of the repository, and chosen environment variables (names that look like secrets are refused unless `allowSecrets`). A changed code state makes an automatic checkpoint.",
    effect: "write",
    input: (z) => ({
      env: z.array(z.string().min(1)).default([]).describe("environment variables to record"),
      allowSecrets: z.boolean().default(false).describe("record variables whose names look like secrets"),
      session: sessionField(z),
    }),
    run: async (ctx, input): Promise<CodeState & Saved> => {
      const cwd = await folder(ctx, place);
      const env = readEnv(input.env);
      const r = await change(ctx, input.session, (rs) => rs.captureCode({ cwd, env, allowSecrets: input.allowSecrets }));
      return { ...r.result, autoCheckpoint: r.autoCheckpoint };
    },
  });
}
