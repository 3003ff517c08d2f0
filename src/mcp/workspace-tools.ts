// The MCP tools of workspace files (to become operations of their own).
// Each tool is a thin call into the library; its result is structured data (and the same
// data as JSON text for clients that read only text), its failure a tool error with
// Forge's message — the server itself never fails because a call did.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { ForgeError, InvalidArgumentError } from "../core/errors.js";
import { parseTime } from "../core/time.js";
import { isReasoningState, EVIDENCE_KINDS, GAP_PRIORITIES, HYPOTHESIS_STATUSES } from "../domains/reasoning/model.js";
import { runCommand } from "../domains/reasoning/runner.js";
import { workspaceRoot } from "../domains/workspace/configured.js";
import { filePatch } from "../domains/workspace/patches.js";
import { STRATEGIES, countChanges, type FileChange } from "../domains/workspace/workspace.js";
import { checkpointJson } from "../timeline/types.js";
import type { OperationContext as McpContext } from "../operations/context.js";
import { errorText, plain } from "./context.js";

type Shape = z.ZodRawShape;
type Args<S extends Shape> = z.infer<z.ZodObject<S>>;
interface Output {
  readonly data: Record<string, unknown>;
  /** What a text-only client reads (default: the data as JSON). */
  readonly text?: string;
}

interface ToolSpec<S extends Shape> {
  readonly title: string;
  readonly description: string;
  readonly input: S;
  readonly annotations: ToolAnnotations;
}

const READ: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };
const WRITE: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, openWorldHint: false };
const DESTRUCTIVE: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false };

function define<S extends Shape>(server: McpServer, name: string, spec: ToolSpec<S>, fn: (args: Args<S>) => Promise<Output>): void {
  server.registerTool(
    name,
    // Strict: an argument the tool does not know (a typo, a guessed name) is an error that
    // names it, not silently ignored.
    { title: spec.title, description: spec.description, inputSchema: z.object(spec.input).strict(), annotations: { title: spec.title, ...spec.annotations } },
    // The SDK validated the arguments against `input` before this runs.
    (async (args: Args<S>): Promise<CallToolResult> => {
      try {
        const out = await fn(args);
        return { content: [{ type: "text", text: out.text ?? JSON.stringify(out.data, null, 2) }], structuredContent: out.data };
      } catch (e) {
        return { content: [{ type: "text", text: errorText(e) }], isError: true };
      }
    }) as never,
  );
}

const session = z.string().min(1).optional().describe('the session (default: the server\'s, from --session or FORGE_SESSION, else "default")');
const ref = (what: string) => z.string().min(1).describe(`${what}: an id or unique prefix, HEAD, HEAD~N, #SEQ, a branch name, or tag:NAME`);
const unit = (what: string) => z.number().min(0).max(1).describe(`${what}, from 0 to 1`);

function changeData(ch: FileChange): Record<string, unknown> {
  return {
    path: ch.path,
    kind: ch.kind,
    ...(ch.from !== undefined && { from: ch.from }),
    ...(ch.before && { before: { type: ch.before.type, mode: ch.before.mode.toString(8), size: ch.before.size } }),
    ...(ch.after && { after: { type: ch.after.type, mode: ch.after.mode.toString(8), size: ch.after.size } }),
  };
}

/** Workspace snapshots, status, diff and restore. */
export function workspaceTools(server: McpServer, ctx: McpContext): void {
  define(
    server,
    "files_snapshot",
    {
      title: "Snapshot the workspace's files",
      description:
        "Record every file of the workspace that is not ignored. Changes made outside the agent since the last snapshot are handled by `strategy`: warn (default: reported, then snapshotted), strict (refused, listed), auto-integrate (recorded first as their own snapshot).",
      input: { message: z.string().default(""), strategy: z.enum(STRATEGIES).default("warn"), tags: z.array(z.string().min(1)).default([]) },
      annotations: WRITE,
    },
    async (a) => {
      const r = await (await ctx.workspace()).snapshot(a.message, { strategy: a.strategy, tags: a.tags });
      return {
        data: {
          snapshot: checkpointJson(r.snapshot),
          external: r.external ? checkpointJson(r.external) : null,
          unknown: [...r.unknown],
          changes: countChanges(r.changes),
          newBytes: r.newBytes,
          incomplete: r.incomplete,
        },
      };
    },
  );

  define(
    server,
    "files_status",
    { title: "Workspace status", description: "Files created, modified, deleted or renamed since the last snapshot, and which of them were changed outside the agent.", input: {}, annotations: READ },
    async () => {
      const s = await (await ctx.workspace()).status();
      return { data: { base: s.base ? checkpointJson(s.base) : null, changes: s.changes.map(changeData), unknown: [...s.unknown], tooLarge: [...s.tooLarge], unreadable: plain(s.unreadable) } };
    },
  );

  define(
    server,
    "files_diff",
    {
      title: "Diff the workspace's files",
      description: 'Unified diffs between two snapshots, or a snapshot and the files on disk (default: the last snapshot and the disk; "working" names the disk). `stat: true` gives counts only.',
      input: {
        from: z.string().min(1).optional().describe("a snapshot (default: the last)"),
        to: z.string().min(1).optional().describe('a snapshot or "working" (default: the files on disk)'),
        paths: z.array(z.string().min(1)).default([]).describe("limit to these files or folders"),
        stat: z.boolean().default(false),
      },
      annotations: READ,
    },
    async (a) => {
      const { changes, read } = await (await ctx.workspace()).diff(a.from, a.to, { paths: a.paths });
      if (a.stat) return { data: { counts: countChanges(changes), files: changes.map(changeData) } };
      const patches = [];
      for (const ch of changes) patches.push(await filePatch(ch, read));
      const text = patches.map((p) => p.patch ?? `${p.kind} ${p.from ? `${p.from} → ` : ""}${p.path}: ${p.note}\n`).join("") || "no changes\n";
      return { data: { counts: countChanges(changes), files: plain(patches) }, text };
    },
  );

  define(
    server,
    "files_restore",
    {
      title: "Restore the workspace's files",
      description:
        "CHANGES FILES ON DISK. Rewrites the workspace (or only `paths`) to a snapshot: changed files are rewritten, files that did not exist then are DELETED, ignored files are left alone. The current files are snapshotted first and the result names that safety snapshot, so the restore can be undone by restoring it. `dryRun: true` lists what would change without changing anything.",
      input: { ref: z.string().min(1).describe("the snapshot"), paths: z.array(z.string().min(1)).default([]), dryRun: z.boolean().default(false) },
      annotations: DESTRUCTIVE,
    },
    async (a) => {
      const r = await (await ctx.workspace()).restore(a.ref, { paths: a.paths, dryRun: a.dryRun });
      return {
        data: {
          dryRun: r.dryRun,
          written: [...r.written],
          deleted: [...r.deleted],
          skipped: plain(r.skipped),
          safetySnapshot: r.safety ? checkpointJson(r.safety) : null,
          restored: r.restored ? checkpointJson(r.restored) : null,
        },
      };
    },
  );

  define(
    server,
    "files_log",
    { title: "Workspace snapshots", description: "Snapshots, newest first.", input: { limit: z.number().int().min(1).max(1000).default(20) }, annotations: READ },
    async (a) => {
      const list = await (await ctx.workspace()).log(a.limit);
      return { data: { snapshots: list.map(checkpointJson) } };
    },
  );
}
