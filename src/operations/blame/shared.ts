// What `blame` and `why` share: where the file is (a path, maybe with `:A-B` or `:N` after
// it), the project it is in, and the JSON shape of one blamed line.
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { InvalidArgumentError } from "../../core/errors.js";
import { workspaceRoot } from "../../domains/workspace/location.js";
import type { BlameLine } from "../../integrations/hosts/blame/blame.js";
import type { Checkpoint } from "../../timeline/types.js";
import type { OperationContext } from "../context.js";
import type { Z } from "../operation.js";

/** A file and the lines of it asked for: "src/a.ts", "src/a.ts:12", "src/a.ts:120-140". */
export interface FileSpec {
  readonly path: string;
  readonly start?: number;
  readonly end?: number;
}

/**
 * Splits "PATH:A-B" / "PATH:N" into the path and the lines; a path that exists as written
 * (a file whose name ends in ":12") is taken whole. `root` resolves relative paths.
 */
export function parseFileSpec(spec: string, root: string): FileSpec {
  const m = /^(.+):(\d+)(?:-(\d+))?$/.exec(spec);
  if (m === null || existsSync(resolve(root, spec))) return { path: spec };
  const start = Number(m[2]);
  const end = m[3] === undefined ? start : Number(m[3]);
  if (start < 1 || end < start) throw new InvalidArgumentError(`invalid line range in "${spec}"`, "write PATH:A-B with 1 ≤ A ≤ B, or PATH:N");
  return { path: m[1] as string, start, end };
}

/** The fields naming the project and its snapshots. */
export const blameLocationFields = (z: Z) => ({
  at: z.string().min(1).optional().describe("a workspace snapshot (id, #seq, HEAD~1…): the file as it was then (default: as it is now)"),
  root: z.string().min(1).optional().describe("the project folder (default: the folder holding .forge, else the current one)"),
  filesSession: z.string().min(1).optional().describe('the session holding the workspace snapshots (default "workspace")'),
});

/** The project root of a call. */
export function blameRoot(ctx: OperationContext, root: string | undefined): string {
  const r = root ?? ctx.options.root;
  return workspaceRoot(r === undefined ? {} : { root: r });
}

/** A snapshot as a blamed line names it. */
export interface SnapshotRefJson {
  readonly id: string;
  readonly seq: number;
  readonly createdAt: string;
  readonly message: string;
}

export function snapshotRefJson(cp: Checkpoint): SnapshotRefJson {
  return { id: cp.id, seq: cp.seq, createdAt: cp.createdAt.toISOString(), message: cp.message };
}

/** One line, as `forge blame --json`, the MCP tool and the web page give it. */
export interface BlameLineJson {
  readonly line: number;
  readonly text: string;
  /** Whether an agent's tool call wrote it; false: a person, another program, or before Forge. */
  readonly agent: boolean;
  /** The prompt whose tool call wrote it: its number in the session and its text. */
  readonly prompt: { readonly number: number; readonly text: string | null } | null;
  /** The captured host session: its Forge session name, host and the host's own id. */
  readonly session: { readonly name: string; readonly host: string; readonly id: string } | null;
  /** The tool call: name, the host's id for it, its input (long values cut short). */
  readonly tool: { readonly name: string; readonly id: string | null; readonly input: unknown } | null;
  /** The workspace snapshot that first held the line as it is (null: only the file on disk has it). */
  readonly checkpoint: SnapshotRefJson | null;
  /** The checkpoint of the moment the prompt was submitted (`forge rewind … --to-prompt N` goes back to it). */
  readonly promptCheckpoint: string | null;
  /** Matched to its prompt by time (a snapshot taken before Forge recorded tool calls). */
  readonly inferred: boolean;
  /** In words: the tool and session, or where the line came from. */
  readonly note: string;
}

export function blameLineJson(l: BlameLine): BlameLineJson {
  const c = l.cause;
  const w = c.write;
  return {
    line: l.line,
    text: l.text,
    agent: c.agent,
    prompt: c.prompt ? { number: c.prompt.number, text: c.prompt.text } : null,
    session: w ? { name: w.session, host: w.host, id: w.hostSession } : null,
    tool: w ? { name: w.tool.name, id: w.tool.id ?? null, input: w.tool.input ?? null } : null,
    checkpoint: c.snapshot ? snapshotRefJson(c.snapshot) : null,
    promptCheckpoint: c.prompt?.checkpoint?.id ?? null,
    inferred: c.inferred,
    note: c.note,
  };
}
