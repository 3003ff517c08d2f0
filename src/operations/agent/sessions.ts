// agent_list and agent_show: the host sessions Forge captured in this project (Claude Code,
// Codex, Gemini CLI, …), and one of them turn by turn — found by its id, or by a commit
// whose Forge-Checkpoint trailer names one of its checkpoints.
import { agentSessionDetail, agentSessionOfCommit, findAgentSession, listAgentSessions } from "../../integrations/hosts/agent-sessions.js";
import { defineOperation } from "../operation.js";
import { checkpointJson, type CheckpointJson } from "../shared.js";
import { type AgentSessionJson, type AgentTurnJson, agentSessionJson, agentTurnJson, project } from "./shared.js";
import type { Message } from "../../domains/conversation/model.js";
import { ForgeError } from "../../core/errors.js";

export const agentListOperation = defineOperation({
  name: "agent_list",
  title: "List captured agent sessions",
  description:
    "The host sessions captured in this project by `forge enable`'s hooks, most recently active first: host, session id, started, prompts, files changed, last activity.",
  effect: "read",
  input: () => ({}),
  run: async (ctx): Promise<{ sessions: AgentSessionJson[] }> => {
    const { forgeDir } = project(ctx);
    return { sessions: (await listAgentSessions(await ctx.store(), forgeDir)).map(agentSessionJson) };
  },
});

export interface AgentShowResult extends AgentSessionJson {
  /** Entries before the first prompt. */
  readonly preamble: readonly Message[];
  readonly turns: readonly AgentTurnJson[];
  /** When found by a commit: the commit and the checkpoint its trailer names. */
  readonly commit: { readonly sha: string; readonly checkpoint: CheckpointJson } | null;
}

export const agentShowOperation = defineOperation({
  name: "agent_show",
  title: "Show a captured agent session",
  description:
    "One captured host session turn by turn: each prompt with the checkpoint of the moment it was submitted (files and conversation) and the messages, tool calls and results that followed. `session` may also be a git commit: the session whose checkpoint its Forge-Checkpoint trailer names.",
  effect: "read",
  input: (z) => ({ session: z.string().min(1).describe("a captured session's id (or a unique prefix), its Forge session name, or a commit") }),
  run: async (ctx, input): Promise<AgentShowResult> => {
    const store = await ctx.store();
    const { root, forgeDir } = project(ctx);
    let detail: Awaited<ReturnType<typeof agentSessionDetail>>;
    try {
      detail = await agentSessionDetail(store, await findAgentSession(store, forgeDir, input.session));
    } catch (e) {
      if (!(e instanceof ForgeError && e.code === "SESSION_NOT_FOUND")) throw e;
      const byCommit = await agentSessionOfCommit(store, forgeDir, root, input.session);
      if (byCommit === undefined) throw e;
      detail = byCommit;
    }
    return {
      ...agentSessionJson(detail),
      preamble: detail.preamble,
      turns: detail.turns.map(agentTurnJson),
      commit: detail.commit ? { sha: detail.commit.sha, checkpoint: checkpointJson(detail.commit.checkpoint) } : null,
    };
  },
});
