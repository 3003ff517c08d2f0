// The last snapshot's tree, kept beside the store (.forge/tree-cache.bin) so that a status
// or a snapshot need not read every directory object back from the store (on 10k files,
// ~500 rows to fetch, inflate, verify and parse: ~70 ms). It is used only for the files
// root it records, after checking that root is the one the store's HEAD points at, and
// only if its own checksum holds; otherwise the tree is read from the store as before.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { sha256, type Hash } from "../../objects/hash.js";
import type { DirEntryType } from "../../objects/node.js";
import type { DirInfo, FileInfo, Tree } from "../../objects/file-tree.js";

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
  // One pass over each map (the snapshot of a 10k-file tree writes this every time).
  const nDirs = tree.dirs.size;
  const nFiles = tree.files.size;
  const nums = new Float64Array(nDirs + 2 * nFiles);
  const paths = new Array<string>(nDirs + nFiles);
  const hashes = new Array<string>(nDirs + nFiles);
  const types = Buffer.alloc(nFiles);
  const targets: string[] = [];
  let i = 0;
  for (const [p, d] of tree.dirs) {
    if (d.hash === undefined || d.hash.length !== 64) throw new Error(`tree cache: directory ${p} has no hash`);
    nums[i] = d.mode;
    paths[i] = p;
    hashes[i] = d.hash;
    i++;
  }
  let j = 0;
  for (const [p, f] of tree.files) {
    if (f.hash !== "" && f.hash.length !== 64) throw new Error(`tree cache: file ${p} has a malformed hash`);
    nums[nDirs + 2 * j] = f.mode;
    nums[nDirs + 2 * j + 1] = f.size;
    paths[nDirs + j] = p;
    hashes[nDirs + j] = f.hash === "" ? NO_HASH : f.hash;
    types[j] = f.type.charCodeAt(0);
    if (f.type === "l") targets.push(f.target ?? "");
    j++;
  }
  const text = Buffer.from(`${paths.join("\0")}\0${targets.length > 0 ? `${targets.join("\0")}\0` : ""}`, "utf8");
  const numsAt = HEADER + 32;
  const hashAt = numsAt + nums.byteLength;
  const typeAt = hashAt + 32 * (nDirs + nFiles);
  const textAt = typeAt + nFiles;
  const buf = Buffer.allocUnsafe(textAt + text.length);
  buf.fill(0, 0, HEADER);
  buf.writeUInt32LE(MAGIC, 0);
  buf.writeUInt32LE(nDirs, 4);
  buf.writeUInt32LE(nFiles, 8);
  buf.writeUInt32LE(text.length, 12);
  buf.write(root, HEADER, 32, "hex");
  Buffer.from(nums.buffer).copy(buf, numsAt);
  // All hashes in one hex decode (each is 64 hex digits): far faster than one write each.
  if (buf.write(hashes.join(""), hashAt, 32 * hashes.length, "hex") !== 32 * hashes.length) throw new Error("tree cache: a hash is not hex");
  types.copy(buf, typeAt);
  text.copy(buf, textAt);
  Buffer.from(sha256(buf.subarray(HEADER)), "hex").copy(buf, 16);
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, buf);
  renameSync(tmp, path);
}

/** The cached tree if the file holds the tree of `root` and is intact; undefined otherwise. */
export function readTreeCache(path: string, root: Hash): Tree | undefined {
  return readCached(path, root)?.tree;
}

/** Whatever tree the file holds, with its root, if it is intact: a base for reading another tree (`readTree`). */
export function readAnyTreeCache(path: string): { root: Hash; tree: Tree } | undefined {
  return readCached(path, undefined);
}

function readCached(path: string, root: Hash | undefined): { root: Hash; tree: Tree } | undefined {
  let buf: Buffer;
  try {
    buf = readFileSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw e;
  }
  if (buf.length < HEADER + 32 || buf.readUInt32LE(0) !== MAGIC) return undefined;
  // The root first: a cache of another tree is not worth checking.
  const held = buf.toString("hex", HEADER, HEADER + 32);
  if (root !== undefined && held !== root) return undefined;
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
  return { root: held, tree: { files, dirs } };
}
