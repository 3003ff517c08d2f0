// A pending write as a side record of its thread's session: scope [namespace, checkpoint id],
// key [task id, idx] (LangGraph's identity of a write), value { channel, path, value }. Scope
// and key are JSON arrays: unambiguous for any strings, and free of the NUL that PostgreSQL
// text cannot hold.
import { ForgeError } from "../../core/errors.js";
import type { SideRecordValue } from "../../timeline/side-records.js";
import { isWrite, type StoredWrite } from "./entry.js";

/** The scope of the writes of checkpoint `id` in namespace `ns`. */
export function writesScope(ns: string, id: string): string {
  return JSON.stringify([ns, id]);
}

/** The side record of a write of checkpoint (ns, id); special channels (idx < 0) replace, others keep the first. */
export function recordOfWrite(ns: string, id: string, w: StoredWrite): SideRecordValue & { readonly replace: boolean } {
  return { scope: writesScope(ns, id), key: JSON.stringify([w.task, w.idx]), value: { channel: w.channel, path: w.path, value: w.value }, replace: w.idx < 0 };
}

/** The write a side record holds; `where` names the thread in the error if it is not one. */
export function writeOfRecord(r: SideRecordValue, where: string): StoredWrite {
  let key: unknown;
  try {
    key = JSON.parse(r.key);
  } catch {
    key = undefined;
  }
  const v = r.value as Record<string, unknown> | null;
  const write =
    Array.isArray(key) && typeof v === "object" && v !== null
      ? { task: key[0], idx: key[1], channel: v["channel"], path: v["path"], value: v["value"] }
      : undefined;
  if (!isWrite(write)) {
    throw new ForgeError("CORRUPT_OBJECT", `a pending write of ${where} is malformed (side record ${JSON.stringify(r.key)} of ${r.scope})`, {
      hint: "it was not written by ForgeSaver, or was changed",
    });
  }
  return write;
}

/** The writes of side records, by scope. */
export function writesByScope(records: readonly SideRecordValue[], where: string): Map<string, StoredWrite[]> {
  const out = new Map<string, StoredWrite[]>();
  for (const r of records) {
    let list = out.get(r.scope);
    if (!list) out.set(r.scope, (list = []));
    list.push(writeOfRecord(r, where));
  }
  return out;
}
