// agent_import: the sessions agent hosts recorded for this project before Forge captured them
// (Claude Code, Codex, Gemini CLI, Copilot CLI and Cursor transcripts in their own folders on
// this machine, OpenCode's database and session files), imported as the conversation timelines live capture makes. Files were not
// recorded then: imported turns say so and carry no files snapshot.
import { ForgeError } from "../../core/errors.js";
import { parsePastTime } from "../../core/time.js";
import type { ImportedSession } from "../../integrations/hosts/import/driver.js";
import type { HostId } from "../../integrations/hosts/types.js";
import { defineOperation } from "../operation.js";
import { IMPORTED_NOTE, project } from "./shared.js";

/** The window a plain `forge agent import` looks back over. */
export const DEFAULT_SINCE = "30 days ago";
const defaultSince = () => new Date(Date.now() - 30 * 86_400_000); // without loading the time parser

export interface AgentImportResult {
  /** Only sessions whose transcript changed since then were looked at (null: all of them). */
  readonly since: string | null;
  /** Per host: where it keeps sessions and how many of this project's it has there. */
  readonly hosts: readonly { readonly host: string; readonly label: string; readonly where: string; readonly found: number }[];
  readonly sessions: readonly ImportedSession[];
  /** Sessions new to the store, sessions with entries added, and the entries and prompts stored. */
  readonly imported: { readonly new: number; readonly added: number; readonly entries: number; readonly prompts: number };
  /** What the timeline cannot hold for this past. */
  readonly note: string;
}

export const agentImportOperation = defineOperation({
  name: "agent_import",
  title: "Import agent sessions from before Forge",
  description:
    "Finds the sessions agent hosts recorded for this project on this machine (Claude Code, Codex, Gemini CLI, Copilot CLI and Cursor transcripts in the hosts' own folders, OpenCode's own database, matched by the working folder they recorded) and imports them as conversation timelines: prompts, replies, tool calls and results, thinking, sub-agents, at their real times, secrets redacted. Incremental: a second run adds only what is new, and a session later captured by the hooks stays one session. Files are not known for that past.",
  effect: "write",
  input: (z) => ({
    hosts: z.array(z.string().min(1)).default([]).describe("only these hosts (claude-code, codex, gemini-cli, copilot, cursor, opencode); none: all"),
    since: z.string().min(1).optional().describe(`only sessions active since this time (default "${DEFAULT_SINCE}")`),
    all: z.boolean().default(false).describe("every session, however old (instead of since)"),
  }),
  run: async (ctx, input): Promise<AgentImportResult> => {
    const { IMPORT_HOSTS, importAgentHistory } = await import("../../integrations/hosts/import/driver.js");
    if (input.all && input.since !== undefined)
      throw new ForgeError("INVALID_ARGUMENT", "give --since or --all, not both", { hint: "--all imports every session, however old" });
    const unknown = input.hosts.filter((h) => !(IMPORT_HOSTS as readonly string[]).includes(h));
    if (unknown.length > 0)
      throw new ForgeError("INVALID_ARGUMENT", `no transcript importer for ${unknown.map((h) => `"${h}"`).join(", ")}`, {
        hint: `the hosts Forge imports: ${IMPORT_HOSTS.join(", ")} (the others keep no transcript Forge can read, see docs/AGENTS.md)`,
        data: { hosts: unknown },
      });
    const since = input.all ? null : input.since === undefined ? defaultSince() : parsePastTime(input.since);
    const store = await ctx.store();
    const { root, forgeDir } = project(ctx);
    const report = await importAgentHistory(store, root, forgeDir, {
      hosts: input.hosts as HostId[],
      since,
      ...(ctx.onProgress !== undefined && { onProgress: ctx.onProgress }),
    });
    const sessions = report.sessions;
    return {
      since: since === null ? null : since.toISOString(),
      hosts: report.hosts,
      sessions,
      imported: {
        new: sessions.filter((s) => s.status === "new").length,
        added: sessions.filter((s) => s.status === "added").length,
        entries: sessions.reduce((n, s) => n + s.added, 0),
        prompts: sessions.reduce((n, s) => n + s.prompts, 0),
      },
      note: IMPORTED_NOTE,
    };
  },
});

/** What `forge enable` says about the sessions the hosts recorded here before: how many no import or hook has read yet. */
export interface EarlierSessions {
  /** Sessions active in the default window whose transcript nothing has read. */
  readonly sessions: number;
  readonly hosts: readonly { readonly host: string; readonly label: string; readonly sessions: number }[];
  /** What brings them in. */
  readonly command: string;
  /** Why they could not be counted (a host folder that cannot be read): enable itself is done all the same. */
  readonly error?: string;
}

/** The earlier sessions of the project at `root` (its .forge in `forgeDir`): a look at the transcripts' first lines, no store read. */
export async function earlierSessions(root: string, forgeDir: string): Promise<EarlierSessions> {
  const command = "forge agent import";
  try {
    const { findHistory, notYetRead } = await import("../../integrations/hosts/import/driver.js");
    const found = await findHistory(root, [], defaultSince());
    const pending = notYetRead(forgeDir, found);
    const hosts = found
      .map((f) => ({ host: f.history.host, label: f.history.label, sessions: pending.filter((s) => s.host === f.history.host).length }))
      .filter((h) => h.sessions > 0);
    return { sessions: pending.length, hosts, command };
  } catch (e) {
    return { sessions: 0, hosts: [], command, error: (e as Error).message };
  }
}
