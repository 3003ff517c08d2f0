// The last snapshot's tree, kept beside the store (.forge/tree-cache.bin) so that a status
// or a snapshot need not read every directory object back from the store (on 10k files,
// ~500 rows to fetch, inflate, verify and parse: ~70 ms). It is used only for the files
// root it records, after checking that root is the one the store's HEAD points at, and
// only if its own checksum holds; otherwise the tree is read from the store as before.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { sha256, type Hash } from "../../objects/hash.js";
import type { DirEntryType } from "../../objects/node.js";
import type { DirInfo, FileInfo, Tree } from "./file-tree.js";

// Layout (columns, so loading is a few bulk copies):
//   header (48 bytes): "FTC1", dir count, file count, text bytes (u32 each), and the
//                      SHA-256 of everything after the header
//   the root hash (32 bytes)
//   dirs × mode, then files × (mode, size), as f64 in this machine's byte order (a local file)
//   dirs × 32-byte hash, then files × 32-byte hash (zeros where a file has none)
//   files × type byte
//   text: dir paths, file paths, then the targets of symlinks in file order, each + NUL
const MAGIC = 0x31435446; // "FTC1" little-endian
const HEADER = 48;
const TYPES = "flxu";
const NO_HASH = "0".repeat(64);

export function writeTreeCache(path: string, root: Hash, tree: Tree): void {
  const dirs = [...tree.dirs];
  const files = [...tree.files];
  const strings: string[] = [];
  for (const [p] of dirs) strings.push(p);
  for (const [p] of files) strings.push(p);
  for (const [, f] of files) if (f.type === "l") strings.push(f.target ?? "");
  const text = Buffer.from(`${strings.join("\0")}\0`, "utf8");
  const nums = new Float64Array(dirs.length + 2 * files.length);
  dirs.forEach(([, d], i) => (nums[i] = d.mode));
  files.forEach(([, f], i) => {
    nums[dirs.length + 2 * i] = f.mode;
    nums[dirs.length + 2 * i + 1] = f.size;
  });
  const numsAt = HEADER + 32;
  const hashAt = numsAt + nums.byteLength;
  const typeAt = hashAt + 32 * (dirs.length + files.length);
  const textAt = typeAt + files.length;
  const buf = Buffer.alloc(textAt + text.length);
  buf.writeUInt32LE(MAGIC, 0);
  buf.writeUInt32LE(dirs.length, 4);
  buf.writeUInt32LE(files.length, 8);
  buf.writeUInt32LE(text.length, 12);
  buf.write(root, HEADER, 32, "hex");
  Buffer.from(nums.buffer).copy(buf, numsAt);
  dirs.forEach(([p, d], i) => {
    if (d.hash === undefined) throw new Error(`tree cache: directory ${p} has no hash`);
    buf.write(d.hash, hashAt + 32 * i, 32, "hex");
  });
  files.forEach(([, f], i) => {
    if (f.hash !== "") buf.write(f.hash, hashAt + 32 * (dirs.length + i), 32, "hex");
    buf[typeAt + i] = f.type.charCodeAt(0);
  });
  text.copy(buf, textAt);
  Buffer.from(sha256(buf.subarray(HEADER)), "hex").copy(buf, 16);
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, buf);
  renameSync(tmp, path);
}

/** The cached tree if the file holds the tree of `root` and is intact; undefined otherwise. */
export function readTreeCache(path: string, root: Hash): Tree | undefined {
  let buf: Buffer;
  try {
    buf = readFileSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw e;
  }
  if (buf.length < HEADER + 32 || buf.readUInt32LE(0) !== MAGIC) return undefined;
  // The root first: a cache of another tree is not worth checking.
  if (buf.toString("hex", HEADER, HEADER + 32) !== root) return undefined;
  const nDirs = buf.readUInt32LE(4);
  const nFiles = buf.readUInt32LE(8);
  const textBytes = buf.readUInt32LE(12);
  const numsAt = HEADER + 32;
  const hashAt = numsAt + 8 * (nDirs + 2 * nFiles);
  const typeAt = hashAt + 32 * (nDirs + nFiles);
  const textAt = typeAt + nFiles;
  if (buf.length !== textAt + textBytes) return undefined;
  if (sha256(buf.subarray(HEADER)) !== buf.toString("hex", 16, 48)) return undefined;

  const nums = new Float64Array(buf.buffer.slice(buf.byteOffset + numsAt, buf.byteOffset + hashAt));
  const hex = buf.toString("hex", hashAt, typeAt);
  const strings = buf.toString("utf8", textAt, textAt + textBytes).split("\0");
  let links = 0;
  for (let i = 0; i < nFiles; i++) if (buf[typeAt + i] === 0x6c) links++;
  if (strings.pop() !== "" || strings.length !== nDirs + nFiles + links) return undefined;

  const dirs = new Map<string, DirInfo>();
  for (let i = 0; i < nDirs; i++) dirs.set(strings[i] as string, { mode: nums[i] as number, hash: hex.slice(64 * i, 64 * i + 64) });
  const files = new Map<string, FileInfo>();
  let target = nDirs + nFiles;
  for (let i = 0; i < nFiles; i++) {
    const type = String.fromCharCode(buf[typeAt + i] as number) as Exclude<DirEntryType, "d">;
    if (!TYPES.includes(type)) return undefined;
    const mode = nums[nDirs + 2 * i] as number;
    const size = nums[nDirs + 2 * i + 1] as number;
    let h = hex.slice(64 * (nDirs + i), 64 * (nDirs + i) + 64);
    if (h === NO_HASH) h = "";
    files.set(strings[nDirs + i] as string, type === "l" ? { type, mode, size, hash: h, target: strings[target++] as string } : { type, mode, size, hash: h });
  }
  if (dirs.size !== nDirs || files.size !== nFiles || !dirs.has("")) return undefined;
  return { files, dirs };
}
