// Where a secret could still hide in files: plain, or inside a deflate stream (raw, zlib or
// gzip) starting at any byte — the way /work/shared/checks/search looks for it.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { constants, inflateRawSync } from "node:zlib";

/** Which of `needles` lie in `buf`, plain or deflated. */
export function leaksIn(buf: Buffer, needles: readonly string[]): string[] {
  const found = new Set<string>();
  for (const n of needles) if (buf.includes(n)) found.add(`${n.slice(0, 8)}… plain`);
  const opts = { finishFlush: constants.Z_SYNC_FLUSH, maxOutputLength: 1 << 20 };
  for (let i = 0; i < buf.length; i++) {
    const t = ((buf[i] as number) >> 1) & 3;
    if (t !== 1 && t !== 2) continue;
    let out: Buffer;
    try {
      out = inflateRawSync(buf.subarray(i, i + 65536), opts);
    } catch {
      continue; // not a deflate stream starting here
    }
    for (const n of needles) if (out.includes(n)) found.add(`${n.slice(0, 8)}… deflated`);
  }
  return [...found];
}

/** Which of `needles` lie in any file under `dir` (recursively), and where. */
export function leaksUnder(dir: string, needles: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      const s = statSync(p);
      if (s.isDirectory()) walk(p);
      else if (s.isFile()) for (const l of leaksIn(readFileSync(p), needles)) out.push(`${l} in ${p}`);
    }
  };
  if (existsSync(dir)) walk(dir);
  return out;
}
