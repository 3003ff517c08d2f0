// What the capture tests of Claude Code, Codex and Gemini CLI share: reading a transcript whole
// or a piece at a time as the host writes it, and the checks every read must pass (Forge's own
// message validation, tool calls answered in order).
import { appendFileSync, copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import { checkMessages } from "../../src/domains/conversation/model.js";
import { readMessages } from "../../src/domains/conversation/interchange.js";
import type { CapturedMessage, TranscriptCursor, TranscriptFormat } from "../../src/integrations/hosts/types.js";

/** The fixtures folder of `host`. */
export function fixture(host: string, name: string): string {
  return fileURLToPath(new URL(`./fixtures/${host}/${name}`, import.meta.url));
}

/** A copy of a fixture in `dir` (tests never write to the fixtures). */
export function copyFixture(host: string, name: string, dir: string, as = name): string {
  const path = join(dir, as);
  copyFileSync(fixture(host, name), path);
  return path;
}

/** All entries of `path`, read at once. */
export function readWhole(format: TranscriptFormat, path: string): CapturedMessage[] {
  return [...format.read(path, null).messages];
}

/**
 * Writes `bytes` to `path` a piece at a time, cut at `cuts` (byte offsets, some in the middle of
 * a line as a host still writing would leave it), reading after each piece from the cursor the
 * last read gave; also checks that a read repeated from the same cursor gives the same entries.
 */
export function readInSteps(format: TranscriptFormat, path: string, bytes: Buffer, cuts: readonly number[]): CapturedMessage[] {
  writeFileSync(path, "");
  let cursor: TranscriptCursor | null = null;
  let written = 0;
  const out: CapturedMessage[] = [];
  for (const cut of [...cuts, bytes.length]) {
    appendFileSync(path, bytes.subarray(written, cut));
    written = cut;
    const first = format.read(path, cursor);
    const again = format.read(path, cursor);
    expect(again.messages).toEqual(first.messages);
    expect(again.cursor).toEqual(first.cursor);
    expect(first.reset ?? false).toBe(false);
    out.push(...first.messages);
    cursor = first.cursor;
  }
  return out;
}

/** Byte offsets to cut `bytes` at: every line end, and halfway through every line. */
export function everyLineAndHalf(bytes: Buffer): number[] {
  const cuts: number[] = [];
  let start = 0;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] !== 0x0a) continue;
    cuts.push(start + Math.floor((i - start) / 2), i + 1);
    start = i + 1;
  }
  return cuts.filter((c, i, all) => c > 0 && c < bytes.length && all.indexOf(c) === i);
}

/** The file's bytes. */
export function bytesOf(path: string): Buffer {
  return readFileSync(path);
}

/** Checks the messages as Forge does on every append, in the model's shape and through readMessages. */
export function expectValid(messages: readonly CapturedMessage[]): void {
  const list = messages.map((m) => m.message);
  expect(() => checkMessages(list)).not.toThrow();
  expect(readMessages(list, "forge")).toEqual(list);
  const keys = messages.map((m) => m.key);
  expect(new Set(keys).size, "keys are unique").toBe(keys.length);
}

/**
 * Every tool result answers a call made before it and not answered yet, and every call is
 * answered before the next prompt (calls after the last prompt may still be running).
 */
export function expectPairsIntact(messages: readonly CapturedMessage[]): void {
  const open = new Set<string>();
  for (const m of messages) {
    if (m.prompt) expect([...open], `calls unanswered before prompt ${m.key}`).toEqual([]);
    for (const call of m.message.toolCalls ?? []) if (call.id !== undefined) open.add(call.id);
    if (m.message.role === "tool") {
      expect(open.has(m.message.toolCallId ?? ""), `result ${m.key} answers an open call`).toBe(true);
      open.delete(m.message.toolCallId ?? "");
    }
  }
}

/** The host records among `messages` (the "system" messages holding a record whole). */
export function hostRecords(messages: readonly CapturedMessage[]): Record<string, unknown>[] {
  return messages.flatMap((m) => {
    const c = m.message.content;
    const part = Array.isArray(c) && c.length === 1 && c[0]?.type === "host-record" ? c[0] : undefined;
    return part === undefined ? [] : [part["record"] as Record<string, unknown>];
  });
}

/** The text of each message (its string content, or its text parts joined). */
export function textOf(m: CapturedMessage): string {
  const c = m.message.content;
  if (typeof c === "string") return c;
  return (c ?? []).map((p) => (typeof p["text"] === "string" ? p["text"] : "")).join("");
}
