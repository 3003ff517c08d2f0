// Side records (backend.ts: SideRecord) as the Session hands them out: JSON values, redacted
// like everything else the store is given, stored as UTF-8 JSON text packed as objects are
// (deflated when that pays, a codec byte first) — in one transaction per write.
import { deflateRawSync, inflateRawSync } from "node:zlib";
import { ForgeError } from "../core/errors.js";
import { mayHoldSecret } from "../core/redact/prefilter.js";
import type { SideRecord } from "../backends/backend.js";
import type { StoreContext } from "./store-context.js";

/** A side record as a caller writes and reads it. */
export interface SideRecordValue {
  /** What the record belongs to inside the session; a scope's records are read together. */
  readonly scope: string;
  /** Unique within the scope. */
  readonly key: string;
  /** Any JSON value. */
  readonly value: unknown;
}

const RAW = 0;
const DEFLATE = 1;
const DEFLATE_FROM = 2048;

/** Whether the store's backend keeps side records. */
export function keepsSideRecords(ctx: StoreContext): boolean {
  return typeof ctx.backend.meta.listSideRecords === "function";
}

function unsupported(ctx: StoreContext): ForgeError {
  return new ForgeError("UNSUPPORTED", `the store at ${ctx.backend.url} keeps no side records (SQLite and PostgreSQL stores do)`, {
    hint: "check Session.keepsSideRecords first",
  });
}

/** Writes `records` of session `sessionId` in one transaction (see MetaWriter.putSideRecords). */
export async function putSideRecords(
  ctx: StoreContext,
  sessionId: string,
  records: readonly (SideRecordValue & { readonly replace?: boolean })[],
): Promise<void> {
  if (!keepsSideRecords(ctx)) throw unsupported(ctx);
  if (records.length === 0) return;
  const redactor = ctx.objects.redactor;
  const rows: (SideRecord & { replace: boolean })[] = [];
  for (const r of records) {
    let { scope, key } = r;
    let text = JSON.stringify(r.value);
    if (text === undefined) throw new ForgeError("INVALID_ARGUMENT", `side record ${JSON.stringify(key)} holds no JSON value`);
    // One scan of the value's JSON text for what any rule needs (redactJson runs it on every
    // string and key: a LangChain message is ~25 of them). A keyword in a string or key is in
    // the JSON text too — no keyword holds a character JSON escapes — so without one in the
    // text, the scope or the key there is nothing to redact.
    if (redactor.enabled && (mayHoldSecret(text) || mayHoldSecret(scope) || mayHoldSecret(key))) {
      const [s, k, v] = await redactor.redactJson([scope, key, r.value]);
      [scope, key, text] = [s, k, JSON.stringify(v)];
    }
    rows.push({ scope, key, value: encode(text), replace: r.replace === true });
  }
  // In one step where the backend can (SQLite): a pending write is a small, hot row.
  if (ctx.backend.putSideRecords) return ctx.backend.putSideRecords(sessionId, rows);
  await ctx.backend.transaction(async (tx) => {
    if (!tx.putSideRecords) throw unsupported(ctx);
    await tx.putSideRecords(sessionId, rows);
  });
}

/**
 * A record's stored bytes: its JSON text, deflated from DEFLATE_FROM bytes on when that saves
 * an eighth. Below that it stays text: a deflate call costs 10–30 µs (most of it setting up
 * zlib's stream), a good part of a small record's whole write.
 */
function encode(text: string): Uint8Array {
  const size = Buffer.byteLength(text, "utf8");
  if (size >= DEFLATE_FROM) {
    const raw = Buffer.from(text, "utf8");
    const z = deflateRawSync(raw);
    return z.length + (raw.length >> 3) < raw.length ? withCodec(DEFLATE, z) : withCodec(RAW, raw);
  }
  // One buffer, the codec byte and the text written into it.
  const out = Buffer.allocUnsafe(size + 1);
  out[0] = RAW;
  out.write(text, 1, "utf8");
  return out;
}

function withCodec(codec: number, body: Uint8Array): Uint8Array {
  const out = Buffer.allocUnsafe(body.length + 1);
  out[0] = codec;
  out.set(body, 1);
  return out;
}

/** The session's side records (of one scope, or all), by scope then key. */
export async function listSideRecords(ctx: StoreContext, sessionId: string, scope?: string): Promise<SideRecordValue[]> {
  const list = ctx.backend.meta.listSideRecords;
  if (!list) throw unsupported(ctx);
  const rows = await list.call(ctx.backend.meta, sessionId, scope);
  return rows.map((r) => ({ scope: r.scope, key: r.key, value: decode(r) }));
}

function decode(r: SideRecord): unknown {
  const where = `side record ${JSON.stringify(r.key)} of scope ${JSON.stringify(r.scope)}`;
  const bytes = Buffer.from(r.value.buffer, r.value.byteOffset, r.value.byteLength);
  try {
    let raw: Buffer;
    if (bytes[0] === RAW) raw = bytes.subarray(1);
    else if (bytes[0] === DEFLATE) raw = inflateRawSync(bytes.subarray(1));
    else throw new Error(`unknown codec byte ${bytes[0]}`);
    return JSON.parse(raw.toString("utf8")) as unknown;
  } catch (e) {
    throw new ForgeError("CORRUPT_OBJECT", `${where} is corrupt: it does not decode to JSON`, { cause: e });
  }
}
