// Values shortened for one line of output, and counts with their nouns.

/** The noun for `n` things: `one` for exactly 1, `many` (default: `one` + "s") otherwise. */
export function noun(n: number, one: string, many = `${one}s`): string {
  return n === 1 ? one : many;
}

/** A count and its noun: "1 checkpoint", "3 checkpoints", "0 checkpoints". */
export function plural(n: number, one: string, many?: string): string {
  return `${n} ${noun(n, one, many)}`;
}

/** A value in a few characters: scalars as JSON, containers by size. */
export function short(v: unknown, max = 24): string {
  if (Array.isArray(v)) return `[${plural(v.length, "item")}]`;
  if (typeof v === "object" && v !== null) return `{${plural(Object.keys(v).length, "key")}}`;
  const s = JSON.stringify(v) ?? String(v);
  return s.length <= max ? s : s.slice(0, max - 1) + "…";
}
