// Reading LangGraph's RunnableConfig at the saver's boundary: which thread, namespace and
// checkpoint a call is about, with errors that name the missing or malformed field.
import type { RunnableConfig } from "@langchain/core/runnables";
import { InvalidArgumentError } from "../../core/errors.js";

export interface Target {
  readonly threadId: string;
  readonly ns: string;
  /** checkpoint_id (or LangGraph's old thread_ts); undefined when not given. */
  readonly checkpointId: string | undefined;
}

const EXAMPLE = 'pass { configurable: { thread_id: "…" } }, as graph.invoke(input, { configurable: { thread_id } }) does';

/** The fields of `config.configurable`, checked; `where` names the method in errors. */
export function readTarget(config: RunnableConfig | undefined, where: string, needs: { checkpointId?: boolean } = {}): Target {
  if (typeof config !== "object" || config === null) throw new InvalidArgumentError(`ForgeSaver.${where}: config is missing`, EXAMPLE);
  const c: unknown = config.configurable;
  if (typeof c !== "object" || c === null) throw new InvalidArgumentError(`ForgeSaver.${where}: config.configurable is missing`, EXAMPLE);
  const threadId = optionalThreadId(c as Record<string, unknown>, where);
  if (threadId === undefined) throw new InvalidArgumentError(`ForgeSaver.${where}: config.configurable.thread_id is missing`, EXAMPLE);
  const target = { threadId, ns: readNs(c as Record<string, unknown>, where), checkpointId: readCheckpointId(c as Record<string, unknown>, where) };
  if (needs.checkpointId && target.checkpointId === undefined) {
    throw new InvalidArgumentError(
      `ForgeSaver.${where}: config.configurable.checkpoint_id is missing`,
      "pass the config that put() returned for the checkpoint",
    );
  }
  return target;
}

/** Like readTarget, but a missing thread_id (or configurable) gives undefined: getTuple finds nothing then. */
export function readOptionalTarget(config: RunnableConfig | undefined, where: string): Target | undefined {
  const c: unknown = config?.configurable;
  if (typeof c !== "object" || c === null) return undefined;
  const threadId = optionalThreadId(c as Record<string, unknown>, where);
  if (threadId === undefined) return undefined;
  return { threadId, ns: readNs(c as Record<string, unknown>, where), checkpointId: readCheckpointId(c as Record<string, unknown>, where) };
}

/** list()'s selection: every field optional (no thread_id: all threads; no checkpoint_ns: all namespaces). */
export function readSelection(config: RunnableConfig | undefined): { threadId?: string; ns?: string; checkpointId?: string } {
  const c: unknown = config?.configurable;
  if (typeof c !== "object" || c === null) return {};
  const r = c as Record<string, unknown>;
  const threadId = optionalThreadId(r, "list");
  const checkpointId = readCheckpointId(r, "list");
  return {
    ...(threadId !== undefined && { threadId }),
    ...(r["checkpoint_ns"] !== undefined && r["checkpoint_ns"] !== null && { ns: readNs(r, "list") }),
    ...(checkpointId !== undefined && { checkpointId }),
  };
}

/** A thread id given to deleteThread. */
export function checkThreadId(threadId: unknown, where: string): string {
  if (typeof threadId !== "string" || threadId === "") {
    throw new InvalidArgumentError(`ForgeSaver.${where}: thread id must be a non-empty string, not ${describe(threadId)}`);
  }
  return threadId;
}

function optionalThreadId(c: Record<string, unknown>, where: string): string | undefined {
  const t = c["thread_id"];
  if (t === undefined || t === null) return undefined;
  if (typeof t !== "string" || t === "") {
    throw new InvalidArgumentError(`ForgeSaver.${where}: config.configurable.thread_id must be a non-empty string, not ${describe(t)}`, EXAMPLE);
  }
  return t;
}

function readNs(c: Record<string, unknown>, where: string): string {
  const ns = c["checkpoint_ns"] ?? "";
  if (typeof ns !== "string") throw new InvalidArgumentError(`ForgeSaver.${where}: config.configurable.checkpoint_ns must be a string, not ${describe(ns)}`);
  return ns;
}

function readCheckpointId(c: Record<string, unknown>, where: string): string | undefined {
  const id = c["checkpoint_id"] || c["thread_ts"]; // as getCheckpointId: "" means none
  if (id === undefined || id === null || id === "") return undefined;
  if (typeof id !== "string") throw new InvalidArgumentError(`ForgeSaver.${where}: config.configurable.checkpoint_id must be a string, not ${describe(id)}`);
  return id;
}

export function describe(v: unknown): string {
  if (typeof v === "string") return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  if (v === null || v === undefined) return String(v);
  if (Array.isArray(v)) return "an array";
  return typeof v === "object" ? `a ${v.constructor?.name ?? "plain object"}` : `${typeof v} ${String(v)}`;
}
