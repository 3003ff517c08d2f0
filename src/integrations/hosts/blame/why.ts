// `forge why`: the story behind one line — the prompt that last wrote it, the agent's thinking
// and words in that turn up to the tool call, the call itself (its whole input, from the
// captured conversation), what it answered, and how to go back to the moment before it.
import type { ContentPart, Message, ToolCall } from "../../../domains/conversation/model.js";
import type { Store } from "../../../timeline/store.js";
import { promptCheckpoints } from "../agent-sessions.js";
import { splitTurns } from "../turns.js";
import { type BlameLine, type BlameReport, blameFile, type BlameOptions } from "./blame.js";

export interface WhyReport {
  readonly blame: BlameReport;
  /** The line asked about. */
  readonly line: BlameLine;
  /** The tool call as the conversation holds it (null when the conversation does not have it). */
  readonly call: { readonly name: string; readonly id: string | null; readonly input: unknown; readonly result: string | null } | null;
  /** The agent's thinking and text in that turn, up to and including the message that made the call. */
  readonly reasoning: readonly { readonly kind: "thinking" | "text"; readonly text: string }[];
  /** What the agent said after the call, in the same turn. */
  readonly reply: readonly string[];
  /** The command that puts the files back as they were when the prompt was submitted. */
  readonly rewind: string | null;
}

/** Why line `line` of a file is what it is (see the file's head). */
export async function whyLine(store: Store, options: Omit<BlameOptions, "start" | "end"> & { readonly line: number }): Promise<WhyReport> {
  const blame = await blameFile(store, { ...options, start: options.line, end: options.line });
  const line = blame.lines[0] as BlameLine;
  const write = line.cause.write;
  if (!line.cause.agent || write === null) return { blame, line, call: null, reasoning: [], reply: [], rewind: null };
  const turn = await turnMessages(store, write.session, write.prompt);
  const at = findCall(turn, write.tool);
  const reasoning: { kind: "thinking" | "text"; text: string }[] = [];
  const reply: string[] = [];
  turn.forEach((m, i) => {
    if (m.role !== "assistant") return;
    for (const p of parts(m)) {
      const t = p.type === "thinking" ? p["thinking"] : p.type === "text" ? p["text"] : undefined;
      if (typeof t !== "string" || t.trim() === "") continue;
      if (at === undefined || i <= at.index) reasoning.push({ kind: p.type as "thinking" | "text", text: t });
      else if (p.type === "text") reply.push(t);
    }
  });
  const result = at?.call.id === undefined ? undefined : turn.find((m) => m.role === "tool" && m.toolCallId === at.call.id);
  return {
    blame,
    line,
    call: at
      ? { name: at.call.name, id: at.call.id ?? null, input: at.call.arguments, result: result === undefined ? null : textOf(result) }
      : { name: write.tool.name, id: write.tool.id ?? null, input: write.tool.input ?? null, result: null },
    reasoning,
    reply,
    rewind: write.prompt >= 1 ? `forge rewind ${write.hostSession} --to-prompt ${write.prompt}` : null,
  };
}

/** The messages of prompt `prompt` of a captured session: from its prompt to the next. */
async function turnMessages(store: Store, sessionName: string, prompt: number): Promise<Message[]> {
  const session = await store.getSession(sessionName).catch(() => undefined);
  if (session === undefined) return [];
  const messages = (((await session.working())?.state as { messages?: Message[] } | undefined)?.messages ?? []) as Message[];
  const prompts = await promptCheckpoints(session);
  const i = prompts.findIndex((cp) => Number(cp.metadata["prompt"]) === prompt);
  if (i < 0) return [];
  return splitTurns(prompts, messages).turns[i] ?? [];
}

/** The turn's call the record names: by its id, else the last call of that tool. */
function findCall(turn: readonly Message[], tool: { readonly name: string; readonly id?: string }): { call: ToolCall; index: number } | undefined {
  let byId: { call: ToolCall; index: number } | undefined;
  let byName: { call: ToolCall; index: number } | undefined;
  turn.forEach((m, index) => {
    for (const call of m.toolCalls ?? []) {
      if (tool.id !== undefined && call.id === tool.id) byId = { call, index };
      if (call.name === tool.name) byName = { call, index };
    }
  });
  return byId ?? byName;
}

function parts(m: Message): ContentPart[] {
  return typeof m.content === "string" ? [{ type: "text", text: m.content }] : (m.content ?? []);
}

function textOf(m: Message): string {
  const text = parts(m)
    .map((p) => (typeof p["text"] === "string" ? p["text"] : ""))
    .join("\n");
  return text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
}
