// What the workspace-files operations share: where the workspace is (the `root` and
// `filesSession` fields), the unknown-change strategy, and the domain's names an interface
// shows (strategy choices, the snapshot session) — small enough for a command module to
// import at its top.
import { STRATEGIES } from "../../domains/workspace/names.js";
import type { Z } from "../operation.js";

export { STRATEGIES, WORKSPACE_SESSION, type Strategy } from "../../domains/workspace/names.js";

/** The fields naming the workspace: its folder and the session of its snapshots. */
export const locationFields = (z: Z) => ({
  root: z.string().min(1).optional().describe("the workspace folder (default: the folder holding .forge, else the current one)"),
  filesSession: z.string().min(1).optional().describe('the session holding the snapshots (default "workspace")'),
});

/** The `strategy` field: what a snapshot does with changes made outside the agent. */
export const strategyField = (z: Z) =>
  z
    .enum(STRATEGIES)
    .default("warn")
    .describe(
      "what to do with changes made outside the agent: warn (reported, then snapshotted), strict (refused, listed), auto-integrate (recorded first as their own snapshot)",
    );
