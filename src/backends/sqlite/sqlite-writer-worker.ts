// The SQLite writer thread (see sqlite-writer.ts): its own connection to the store's file,
// inserting batches of objects the main thread sends, so that SQLite's commits and WAL
// checkpoints (with their fsyncs) never block the thread that reads and hashes files.
import Database from "better-sqlite3";
import { sqliteAddon } from "./sqlite-addon.js";
import { parentPort, workerData } from "node:worker_threads";

interface Job {
  readonly id: number;
  /** n × 32 bytes of hashes. */
  readonly hashes: Uint8Array;
  /** All the objects' stored bytes, back to back; `ends[i]` is where object i ends. */
  readonly data: Uint8Array;
  readonly ends: readonly number[];
  readonly now: number;
}

const { path, timeoutMs } = workerData as { path: string; timeoutMs: number };
const db = new Database(path, { timeout: timeoutMs, ...sqliteAddon() });
db.pragma("synchronous = NORMAL");
const insert = db.prepare("INSERT OR IGNORE INTO objects (hash, data, created_at) VALUES (?, ?, ?)");
const insertAll = db.transaction((job: Job) => {
  const hashes = Buffer.from(job.hashes.buffer, job.hashes.byteOffset, job.hashes.byteLength);
  const data = Buffer.from(job.data.buffer, job.data.byteOffset, job.data.byteLength);
  let bytes = 0;
  let start = 0;
  for (let i = 0; i < job.ends.length; i++) {
    const end = job.ends[i] as number;
    if (insert.run(hashes.subarray(32 * i, 32 * i + 32), data.subarray(start, end), job.now).changes > 0) bytes += end - start;
    start = end;
  }
  return bytes;
});

parentPort?.on("message", (job: Job | "close") => {
  if (job === "close") {
    db.close();
    parentPort?.close();
    return;
  }
  try {
    parentPort?.postMessage({ id: job.id, bytes: insertAll.immediate(job) as number });
  } catch (e) {
    parentPort?.postMessage({ id: job.id, error: { message: (e as Error).message, code: (e as { code?: unknown }).code } });
  }
});
