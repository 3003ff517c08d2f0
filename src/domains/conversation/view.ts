// A conversation as the page shows it, and what changed between two of its checkpoints.
// The state shape is the conversation domain's (src/domains/conversation): the page gets
// each message's role, text, name, tool calls and tool-call id.

export interface MessageView {
  readonly role: string;
  /** The content as text (parts joined; non-text parts named). */
  readonly text: string;
  readonly name?: string;
  readonly toolCalls?: readonly { readonly id: string; readonly name: string; readonly arguments: unknown }[];
  readonly toolCallId?: string;
}

export interface ConversationView {
  readonly messages: readonly MessageView[];
}

export interface ConversationComparison {
  /** Messages both sides begin with. */
  readonly common: number;
  /** The first side's messages after the common part (gone in the second). */
  readonly removed: readonly MessageView[];
  /** The second side's messages after the common part. */
  readonly added: readonly MessageView[];
  readonly summary: string;
}

/** The conversation a state holds, or null if it is not one. */
export function conversationOf(state: unknown): ConversationView | null {
  if (typeof state !== "object" || state === null || !Array.isArray((state as { messages?: unknown }).messages)) return null;
  const messages: MessageView[] = [];
  for (const m of (state as { messages: unknown[] }).messages) {
    if (typeof m !== "object" || m === null || typeof (m as { role?: unknown }).role !== "string") return null;
    messages.push(messageView(m as Record<string, unknown>));
  }
  return { messages };
}

function messageView(m: Record<string, unknown>): MessageView {
  const toolCalls = Array.isArray(m["toolCalls"])
    ? (m["toolCalls"] as Record<string, unknown>[]).map((c) => ({
        id: String(c["id"] ?? ""),
        name: String(c["name"] ?? ""),
        arguments: c["arguments"] ?? c["args"] ?? null,
      }))
    : undefined;
  return {
    role: m["role"] as string,
    text: contentText(m["content"]),
    ...(typeof m["name"] === "string" && { name: m["name"] }),
    ...(toolCalls && toolCalls.length > 0 && { toolCalls }),
    ...(typeof m["toolCallId"] === "string" && { toolCallId: m["toolCallId"] }),
  };
}

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (content === null || content === undefined) return "";
  if (!Array.isArray(content)) return JSON.stringify(content);
  return content
    .map((p: unknown) => {
      if (typeof p === "string") return p;
      const part = p as { type?: unknown; text?: unknown };
      if (typeof part?.text === "string") return part.text;
      return `[${typeof part?.type === "string" ? part.type : "part"}]`;
    })
    .join("\n");
}

export function compareConversations(a: ConversationView, b: ConversationView): ConversationComparison {
  let common = 0;
  while (common < a.messages.length && common < b.messages.length && JSON.stringify(a.messages[common]) === JSON.stringify(b.messages[common])) common++;
  const removed = a.messages.slice(common);
  const added = b.messages.slice(common);
  const parts = [`${common} message${common === 1 ? "" : "s"} in common`];
  if (added.length) parts.push(`${added.length} added`);
  if (removed.length) parts.push(`${removed.length} no longer there`);
  return { common, removed, added, summary: parts.join(", ") };
}
