// The conversation a hook payload itself carries, for the hosts whose transcript no hook can
// read (Factory Droid, Windsurf, Cline, Kiro): the prompt the user typed, each tool call with
// its input and its result, and the reply when the host hands it to a hook. Every entry is
// checked by the conversation model (one it refuses is kept whole as a host record).
import type { Message } from "../../../domains/conversation/model.js";
import type { CapturedMessage, HostEvent } from "../types.js";
import { argumentsFromValue, captured, keyed } from "./messages.js";

/** The entries of `event` (keys made from `key`); `reply` is the agent's answer the payload gives, if any. */
export function payloadConversation(event: HostEvent, key: string, reply?: string): CapturedMessage[] {
  const out: { message: Message; prompt: boolean }[] = [];
  if (event.kind === "prompt" && event.prompt !== undefined && event.prompt !== "")
    out.push({ message: { role: "user", content: event.prompt }, prompt: true });
  const tool = event.kind === "tool" ? event.tool : undefined;
  if (tool !== undefined) {
    // The host's own id of the call when the payload gives one, else one made from the key.
    const id = (tool as { readonly id?: string }).id ?? `${key}#call`;
    out.push({ message: { role: "assistant", content: null, toolCalls: [{ id, name: tool.name, ...argumentsFromValue(tool.input ?? {}) }] }, prompt: false });
    if (tool.response !== undefined)
      out.push({ message: { role: "tool", toolCallId: id, name: tool.name, content: resultText(tool.response) }, prompt: false });
  }
  if (reply !== undefined && reply !== "") out.push({ message: { role: "assistant", content: reply }, prompt: false });
  return out.map((m, i) => captured(event.host, keyed(key, i), m.message, { prompt: m.prompt, record: event.raw }));
}

/** A tool's result as the text of a tool message: a string as it is, anything else as JSON. */
function resultText(v: unknown): string {
  return typeof v === "string" ? v : (JSON.stringify(v) ?? "");
}
