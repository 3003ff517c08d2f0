// Object keys as the value encoder stores them: redacted like strings (a map keyed by URLs
// may hold a password). Keys repeat across objects and states, so a redactor without path
// rules has its answers cached; the cache belongs to one redactor at a time.
import type { JsonPathKey, Redactor } from "../core/redact/redactor.js";

const cache = new Map<string, string>();
const MAX = 4096;
let owner: Redactor | undefined;

/** `k` redacted by `redactor`; `path` is where the walk is when the allow-list names paths (then nothing is cached). */
export function redactKey(redactor: Redactor, k: string, path: JsonPathKey[] | null): string {
  if (path !== null) {
    path.push(k);
    try {
      return redactor.redact(k, path);
    } finally {
      path.pop();
    }
  }
  if (redactor !== owner) {
    cache.clear();
    owner = redactor;
  }
  let r = cache.get(k);
  if (r === undefined) {
    r = redactor.redact(k);
    if (cache.size >= MAX) cache.clear();
    cache.set(k, r);
  }
  return r;
}
