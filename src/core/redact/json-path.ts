// Where a value sits in a JSON state, as the allow-list names it: dotted segments
// (`messages.3.content`), `*` for one segment (or part of one: `msg*`), `**` for any number.

/** One step into a JSON value: an object key or an array index. */
export type JsonPathKey = string | number;

/** A compiled list of path patterns. */
export class PathPatterns {
  readonly #patterns: readonly (readonly RegExp[] | "**")[][];

  constructor(patterns: readonly string[]) {
    this.#patterns = patterns.map((p) => p.split(".").map((seg) => (seg === "**" ? "**" : [segmentRegex(seg)])));
  }

  /** Whether there are no patterns (nothing is allowed by path). */
  get empty(): boolean {
    return this.#patterns.length === 0;
  }

  /** Whether `path` matches one of the patterns. */
  matches(path: readonly JsonPathKey[]): boolean {
    const segs = path.map(String);
    return this.#patterns.some((p) => matchFrom(p, 0, segs, 0));
  }
}

function segmentRegex(seg: string): RegExp {
  return new RegExp(`^${seg.replace(/[.+?^${}()|[\]\\/-]/g, "\\$&").replace(/\*/g, ".*")}$`);
}

function matchFrom(p: readonly (readonly RegExp[] | "**")[], i: number, segs: readonly string[], j: number): boolean {
  if (i === p.length) return j === segs.length;
  const step = p[i];
  if (step === "**") {
    for (let k = j; k <= segs.length; k++) if (matchFrom(p, i + 1, segs, k)) return true;
    return false;
  }
  return j < segs.length && (step as readonly RegExp[])[0]?.test(segs[j] as string) === true && matchFrom(p, i + 1, segs, j + 1);
}

/** A path as people write it: `messages.3.content` (`$` for the root). */
export function formatJsonPath(path: readonly JsonPathKey[]): string {
  return path.length === 0 ? "$" : path.map(String).join(".");
}
