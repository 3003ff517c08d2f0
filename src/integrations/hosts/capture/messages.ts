// Building the captured messages a transcript reader returns: every message checked by the
// conversation model before it leaves (a record the mapping could not express is kept whole
// as a host record instead), and anything unmapped kept whole as a "system" message.
import type { ContentPart, Message } from "../../../domains/conversation/model.js";
import { checkMessage } from "../../../domains/conversation/model.js";
import type { CapturedMessage, HostId } from "../types.js";

/** A "system" message holding a host record Forge does not map, whole. */
export function hostRecord(host: HostId, key: string, record: unknown, at?: string, error?: string): CapturedMessage {
  const part: ContentPart = { type: "host-record", host, record, ...(error !== undefined && { error }) };
  return { key, message: { role: "system", content: [part] }, prompt: false, ...(at !== undefined && { at }) };
}

/**
 * A captured message, checked by the conversation model. If the mapping produced something
 * the model refuses (a host record with a field of an unexpected type), the record is kept
 * whole as a host record, with the reason, rather than lost or let through broken.
 */
export function captured(
  host: HostId,
  key: string,
  message: Message,
  options: { prompt?: boolean; at?: string | undefined; record: unknown },
): CapturedMessage {
  try {
    const checked = checkMessage(message, 0, `${host} transcript entry ${key}`);
    return { key, message: checked, prompt: options.prompt === true, ...(options.at !== undefined && { at: options.at }) };
  } catch (e) {
    return hostRecord(host, key, options.record, options.at, (e as Error).message);
  }
}

/** Content as the model keeps it: one plain text part as a string, else the parts (null when there are none and `allowNull`). */
export function toContent(parts: readonly ContentPart[], allowNull: boolean): string | ContentPart[] | null {
  if (parts.length === 0) return allowNull ? null : "";
  const first = parts[0];
  if (parts.length === 1 && first !== undefined && first.type === "text" && typeof first["text"] === "string" && Object.keys(first).length === 2) {
    return first["text"];
  }
  return [...parts];
}

/** Parses a tool call's arguments from text: the object, and the text when it is not exactly how JSON.stringify writes it. */
export function argumentsFromText(textArgs: string): { arguments: Record<string, unknown>; argumentsText?: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(textArgs) as unknown;
  } catch {
    return { arguments: {}, argumentsText: textArgs }; // not JSON: kept as written
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return { arguments: {}, argumentsText: textArgs };
  const args = parsed as Record<string, unknown>;
  return JSON.stringify(args) === textArgs ? { arguments: args } : { arguments: args, argumentsText: textArgs };
}

/** Tool call arguments from a decoded value: an object as it is, anything else as its JSON text with `{}`. */
export function argumentsFromValue(v: unknown): { arguments: Record<string, unknown>; argumentsText?: string } {
  if (typeof v === "object" && v !== null && !Array.isArray(v)) return { arguments: v as Record<string, unknown> };
  return { arguments: {}, argumentsText: JSON.stringify(v ?? null) };
}

/** Keys for the messages one host record becomes: the record's own key, then `key#1`, `key#2`, … */
export function keyed(base: string, index: number): string {
  return index === 0 ? base : `${base}#${index}`;
}
