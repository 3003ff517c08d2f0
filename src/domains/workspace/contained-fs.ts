// File-system calls that stay inside one folder. Every call a restore makes goes through
// here: none follows a symbolic link — files are created exclusively with O_NOFOLLOW, modes
// are set on a descriptor of what was just created or opened without following links,
// links and files replace what is there by rename (which acts on the name, never on what a
// link at that name points to) — and every folder on the way to a path is checked to be a
// real folder inside the root at the moment it is written.
//
// Node has no openat(), so a check and the call after it are two system calls: a process
// that can write into the work tree and swaps a folder for a link between the two could
// still steer one call. Forge's guarantee is against hostile data (snapshots, bundles),
// which is what it restores; see docs/SECURITY.md.
import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fchmodSync,
  lstatSync,
  mkdirSync,
  openSync,
  renameSync,
  rmdirSync,
  symlinkSync,
  unlinkSync,
  writeSync,
  type Stats,
} from "node:fs";
import { join } from "node:path";
import { ForgeError } from "../../core/errors.js";

const { O_WRONLY, O_RDONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_DIRECTORY } = constants;

/** Never setuid, setgid or sticky from a snapshot. */
const PERMISSIONS = 0o777;

export class ContainedFs {
  readonly root: string;

  constructor(root: string) {
    this.root = root;
  }

  /** The absolute path of `path` ("/"-separated, relative to the root). */
  abs(path: string): string {
    return path === "" ? this.root : join(this.root, path);
  }

  /** What is at `path` now, links not followed; undefined if nothing. Its folders are checked first. */
  lstat(path: string): Stats | undefined {
    this.#checkParents(path);
    return lstatSync(this.abs(path), { throwIfNoEntry: false });
  }

  /**
   * Makes folder `dir` and any missing folder above it, one level at a time; an existing
   * level must be a real folder. A file or link where a folder must go is an error here:
   * the caller decides beforehand what may be replaced.
   */
  mkdirs(dir: string): void {
    let at = "";
    for (const part of dir.split("/")) {
      at = at === "" ? part : `${at}/${part}`;
      const st = lstatSync(this.abs(at), { throwIfNoEntry: false });
      if (st === undefined) {
        try {
          mkdirSync(this.abs(at));
        } catch (e) {
          // Made meanwhile by someone else: checked below like any existing folder.
          if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
        }
        this.#mustBeFolder(at, lstatSync(this.abs(at)));
      } else this.#mustBeFolder(at, st);
    }
  }

  /** Writes a file: a new, exclusive temporary file beside it (O_NOFOLLOW), its mode set on the descriptor, renamed over the name. */
  writeFile(path: string, data: Uint8Array, mode: number): void {
    this.#checkParents(path);
    const tmp = this.#tempBeside(path);
    const fd = openSync(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
    try {
      for (let off = 0; off < data.length; ) off += writeSync(fd, data, off, data.length - off);
      fchmodSync(fd, mode & PERMISSIONS);
    } catch (e) {
      closeSync(fd);
      unlinkSync(tmp);
      throw e;
    }
    closeSync(fd);
    this.#renameOver(tmp, path);
  }

  /** Creates a symbolic link (made under a temporary name, renamed over `path`). */
  symlink(path: string, target: string): void {
    this.#checkParents(path);
    const tmp = this.#tempBeside(path);
    symlinkSync(target, tmp);
    this.#renameOver(tmp, path);
  }

  /** Removes a file or link (never what a link points to); nothing there is fine. */
  unlink(path: string): void {
    this.#checkParents(path);
    try {
      unlinkSync(this.abs(path));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    }
  }

  /** Removes an empty folder; returns false when it is not empty (or not there). */
  rmdir(dir: string): boolean {
    this.#checkParents(dir);
    try {
      rmdirSync(this.abs(dir));
      return true;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "ENOTEMPTY" || code === "EEXIST" || code === "ENOENT" || code === "ENOTDIR") return false;
      throw e;
    }
  }

  /**
   * Sets a folder's mode through a descriptor opened with O_DIRECTORY | O_NOFOLLOW: a link
   * at that name is refused by the kernel, never followed. Returns false when `dir` is no
   * longer a real folder.
   */
  chmodDir(dir: string, mode: number): boolean {
    this.#checkParents(dir);
    let fd: number;
    try {
      fd = openSync(this.abs(dir), O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "ELOOP" || code === "ENOTDIR" || code === "ENOENT") return false;
      throw e;
    }
    try {
      fchmodSync(fd, mode & PERMISSIONS);
    } finally {
      closeSync(fd);
    }
    return true;
  }

  /** Every folder above `path` must be a real folder (a missing one is fine: nothing can be written through it). */
  #checkParents(path: string): void {
    let at = "";
    const parts = path.split("/");
    for (let i = 0; i < parts.length - 1; i++) {
      at = at === "" ? (parts[i] as string) : `${at}/${parts[i]}`;
      let st: Stats | undefined;
      try {
        st = lstatSync(this.abs(at), { throwIfNoEntry: false });
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === "ENOTDIR") return; // a file on the way: nothing below it exists
        throw e;
      }
      if (st === undefined) return;
      this.#mustBeFolder(at, st, path);
    }
  }

  #mustBeFolder(at: string, st: Stats, writing = at): void {
    if (st.isDirectory()) return;
    const what = st.isSymbolicLink() ? "a symbolic link, which could lead outside the workspace" : "not a folder";
    throw new ForgeError("PATH_OUTSIDE_WORKSPACE", `refusing to write ${writing}: ${this.abs(at)} is ${what}`, {
      hint: "move it out of the way, or restore other paths with -- PATHS",
      data: { path: writing },
    });
  }

  /** A short random name in `path`'s folder: created exclusively, never too long, never a planted name. */
  #tempBeside(path: string): string {
    const slash = path.lastIndexOf("/");
    return this.abs(`${slash < 0 ? "" : path.slice(0, slash + 1)}.forge-${randomBytes(6).toString("hex")}.tmp`);
  }

  #renameOver(tmp: string, path: string): void {
    try {
      renameSync(tmp, this.abs(path));
    } catch (e) {
      unlinkSync(tmp);
      throw e;
    }
  }
}
