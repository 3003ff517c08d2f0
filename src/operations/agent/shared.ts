// What the agent operations share: the project (the folder holding .forge, where the hooks
// keep their state) and the JSON shapes of a captured session and a turn.
import { join } from "node:path";
import { FORGE_DIR } from "../../core/config.js";
import { workspaceRoot } from "../../domains/workspace/location.js";
import type { AgentSessionSummary, AgentTurn } from "../../integrations/hosts/agent-sessions.js";
import type { Message } from "../../domains/conversation/model.js";
import type { OperationContext } from "../context.js";
import { checkpointJson, type CheckpointJson } from "../shared.js";
import type { Z } from "../operation.js";

/** The project root and its .forge folder: the context's root, else the folder holding .forge above `cwd`. */
export function project(ctx: OperationContext, cwd?: string): { readonly root: string; readonly forgeDir: string } {
  const root = workspaceRoot({ ...(ctx.options.root !== undefined && { root: ctx.options.root }), ...(cwd !== undefined && { cwd }) });
  return { root, forgeDir: join(root, FORGE_DIR) };
}

/** The `session` field of the agent operations: a captured host session. */
export const agentSessionField = (z: Z) => z.string().min(1).describe("the captured host session: its id (or a unique prefix), or its Forge session name");

export interface AgentSessionJson {
  readonly host: string;
  readonly sessionId: string;
  readonly session: string;
  readonly started: string;
  readonly prompts: number;
  readonly filesChanged: number;
  readonly lastActivity: string;
  readonly ended: boolean;
  readonly transcript: string | null;
  /** Set when (some of) it came from `forge agent import`: the importer's format and version, when it last added, and what that past lacks. */
  readonly imported: { readonly format: string; readonly version: number; readonly at: string; readonly note: string } | null;
  /** A sub-agent's session: the host session that started it. */
  readonly parent: string | null;
}

/** What an imported session's timeline cannot hold. */
export const IMPORTED_NOTE =
  "imported from the host's transcript: files were not recorded before Forge, so imported turns have no files snapshot and `forge rewind` cannot go back to them";

export function agentSessionJson(s: AgentSessionSummary): AgentSessionJson {
  return {
    host: s.host,
    sessionId: s.sessionId,
    session: s.session,
    started: s.started.toISOString(),
    prompts: s.prompts,
    filesChanged: s.filesChanged,
    lastActivity: s.lastActivity.toISOString(),
    ended: s.ended,
    transcript: s.transcript,
    imported: s.imported === null ? null : { ...s.imported, note: IMPORTED_NOTE },
    parent: s.parent,
  };
}

export interface AgentTurnJson {
  readonly prompt: number;
  readonly text: string | null;
  readonly checkpoint: CheckpointJson;
  /** The turn was imported from the host's transcript: no files snapshot. */
  readonly imported: boolean;
  readonly messages: readonly Message[];
}

export function agentTurnJson(t: AgentTurn): AgentTurnJson {
  return { prompt: t.prompt, text: t.text, checkpoint: checkpointJson(t.checkpoint), imported: t.imported, messages: t.messages };
}
