// Values shortened for one line of output.

/** A value in a few characters: scalars as JSON, containers by size. */
export function short(v: unknown, max = 24): string {
  if (Array.isArray(v)) return `[${v.length} item${v.length === 1 ? "" : "s"}]`;
  if (typeof v === "object" && v !== null) return `{${Object.keys(v).length} key${Object.keys(v).length === 1 ? "" : "s"}}`;
  const s = JSON.stringify(v) ?? String(v);
  return s.length <= max ? s : s.slice(0, max - 1) + "…";
}
