// The hooks `forge enable` installs: `forge hook <kind> --host <id>` at a host's events (the
// capture of its session) and `forge hook commit-msg` from git's prepare-commit-msg.
import type { HookReport } from "../../integrations/hooks/hooks.js";
import { CAPTURE_KINDS, type HostId } from "../../integrations/hosts/types.js";
import { defineOperation } from "../operation.js";
import { checkpointJson, type CheckpointJson } from "../shared.js";
import { project } from "./shared.js";

export const captureHookOperation = defineOperation({
  name: "hook_capture",
  title: "Hook: capture a host event",
  description:
    "At a host's hook event: the new part of its transcript imported into the session's conversation, the files snapshotted when they may have changed, and at a prompt a checkpoint joining that moment's files, conversation and reasoning.",
  effect: "write",
  input: (z) => ({
    host: z.string().min(1).describe("the host: claude-code, codex, gemini-cli, cursor, copilot or opencode"),
    kind: z.enum(CAPTURE_KINDS).describe("Forge's event"),
    payload: z.record(z.string(), z.unknown()).default({}).describe("the host's hook payload (its JSON on stdin)"),
    cwd: z.string().min(1).describe("the folder the hook runs in, when the payload names none"),
  }),
  run: async (ctx, input): Promise<HookReport> => {
    const { captureEvent } = await import("../../integrations/hosts/capture-event.js");
    const store = await ctx.store();
    return captureEvent(store, input.host as HostId, input.kind, input.payload, {
      cwd: input.cwd,
      reasoningSession: ctx.sessionName(),
      brief: async (event) => {
        const { sessionStart } = await import("../../integrations/hooks/hooks.js");
        const r = await sessionStart(store, { ...(event.source !== undefined && { source: event.source }) }, { session: ctx.sessionName() });
        return r.stdout;
      },
    });
  },
});

export interface CommitHookResult {
  /** The checkpoint the trailer names; null when no captured session is active (the message is left alone). */
  readonly checkpoint: CheckpointJson | null;
  readonly session: string | null;
}

export const commitMsgHookOperation = defineOperation({
  name: "hook_commit_msg",
  title: "Hook: a Forge-Checkpoint trailer for a commit",
  description:
    "From git's prepare-commit-msg: when a captured host session is active in the project, snapshot the files into a checkpoint of it and add `Forge-Checkpoint: <id>` to the commit message.",
  effect: "write",
  input: (z) => ({
    file: z.string().min(1).describe("the commit message file git passes"),
    source: z.string().optional().describe("git's commit source: message, template, merge, squash or commit"),
    cwd: z.string().min(1).describe("the work tree"),
  }),
  run: async (ctx, input): Promise<CommitHookResult> => {
    const { addCommitTrailer } = await import("../../integrations/hosts/commit-trailer.js");
    const { root, forgeDir } = project(ctx, input.cwd);
    const r = await addCommitTrailer(await ctx.store(), root, forgeDir, input.file, input.source);
    return { checkpoint: r.checkpoint ? checkpointJson(r.checkpoint) : null, session: r.session };
  },
});
