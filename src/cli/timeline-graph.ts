// Draws a session's checkpoints as a graph of branches, newest first, in the manner of
// `git log --graph`: one lane per line of history, a fork shown where a lane joins another.
// Branch heads, HEAD and milestone ends (◆ NAME start / end) are labelled.
import type { TimelineResult } from "../operations/checkpoint/read.js";
import { c, checkpointLine } from "./output.js";

export function renderTimeline(tl: TimelineResult, now = Date.now()): string[] {
  const lines: string[] = [];
  const heads = new Map<string, string[]>();
  for (const b of tl.branches) heads.set(b.headId, [...(heads.get(b.headId) ?? []), b.name]);
  /** The checkpoint each lane waits for next; null for a free lane. */
  const lanes: (string | null)[] = [];
  const newestFirst = [...tl.checkpoints].sort((a, b) => b.seq - a.seq);
  for (const cp of newestFirst) {
    let mine = lanes.map((id, i) => (id === cp.id ? i : -1)).filter((i) => i >= 0);
    if (mine.length === 0) {
      const free = lanes.indexOf(null);
      const lane = free >= 0 ? free : lanes.length;
      lanes[lane] = cp.id;
      mine = [lane];
    }
    const lane = mine[0] as number;
    // Lanes that also wait for this checkpoint forked from it: they join its lane here.
    const joining = mine.slice(1);
    if (joining.length > 0) {
      // Each joining lane draws a "/" between itself and the lane to its left, as git does.
      const row = new Array<string>(2 * Math.max(...joining) + 1).fill(" ");
      lanes.forEach((id, i) => {
        if (joining.includes(i)) row[2 * i - 1] = "/";
        else if (id !== null && 2 * i < row.length) row[2 * i] = "|";
      });
      lines.push(row.join("").trimEnd());
      for (const i of joining) lanes[i] = null;
    }
    const graph = lanes.map((id, i) => (i === lane ? c.green("*") : id !== null ? "|" : " ")).join(" ");
    const labels: string[] = [];
    const isHead = tl.head.checkpointId === cp.id;
    for (const name of heads.get(cp.id) ?? []) {
      labels.push(isHead && tl.head.branch === name ? c.bold(c.cyan(`HEAD -> ${name}`)) : c.cyan(name));
    }
    if (isHead && tl.head.branch === null) labels.unshift(c.bold(c.cyan("HEAD")));
    for (const m of tl.milestones) {
      if (m.fromId === cp.id) labels.push(c.yellow(`◆ ${m.name} start`));
      if (m.toId === cp.id) labels.push(c.yellow(`◆ ${m.name} end`));
    }
    const label = labels.length ? ` (${labels.join(", ")})` : "";
    lines.push(`${graph.trimEnd()} ${checkpointLine(cp, { now }).trimStart()}${label}`);
    lanes[lane] = cp.parentId;
    while (lanes.length > 0 && lanes[lanes.length - 1] === null) lanes.pop();
  }
  return lines;
}
