// A session's timeline as a graph, newest first: one lane per branch, a dot per checkpoint,
// a line from each checkpoint to its parent, badges for branch heads and milestone ends.
// Click a row to open it; tick two to compare.
import type { CheckpointJson, SessionDetail } from "./api.js";

const ROW = 52;
const LANE = 18;

export function Timeline(props: {
  detail: SessionDetail;
  selected: string | null;
  compare: string[];
  onOpen: (id: string) => void;
  onToggleCompare: (id: string) => void;
}) {
  const { checkpoints, head, branches, milestones } = props.detail;
  if (checkpoints.length === 0) return <p class="muted">No checkpoints yet.</p>;
  // Lanes by first appearance, oldest first, so main stays leftmost.
  const lanes = new Map<string, number>();
  for (const cp of [...checkpoints].reverse()) if (!lanes.has(cp.branch)) lanes.set(cp.branch, lanes.size);
  const row = new Map(checkpoints.map((c, i) => [c.id, i]));
  const x = (cp: CheckpointJson) => 10 + (lanes.get(cp.branch) ?? 0) * LANE;
  const y = (i: number) => i * ROW + ROW / 2;
  const width = 20 + lanes.size * LANE;
  const heads = new Map<string, string[]>();
  for (const b of branches) heads.set(b.headId, [...(heads.get(b.headId) ?? []), b.name]);
  const byId = new Map(checkpoints.map((c) => [c.id, c]));
  // Milestone ends: "◆ name start" / "◆ name end" beside the checkpoint.
  const marks = new Map<string, { key: string; text: string; title: string }[]>();
  const mark = (id: string, key: string, text: string, title: string) => marks.set(id, [...(marks.get(id) ?? []), { key, text, title }]);
  for (const m of milestones ?? []) {
    mark(m.fromId, `${m.name}:from`, `◆ ${m.name} start`, m.description || `milestone ${m.name} starts here`);
    mark(m.toId, `${m.name}:to`, `◆ ${m.name} end`, m.description || `milestone ${m.name} ends here`);
  }
  return (
    <div class="timeline" style={{ paddingLeft: `${width}px` }}>
      <svg class="graph" width={width} height={checkpoints.length * ROW} aria-hidden="true">
        {checkpoints.map((cp, i) => {
          const p = cp.parentId === null ? undefined : row.get(cp.parentId);
          const parent = cp.parentId === null ? undefined : byId.get(cp.parentId);
          if (p === undefined || !parent) return null;
          const x1 = x(cp);
          const x2 = x(parent);
          const d = x1 === x2 ? `M${x1},${y(i)} L${x2},${y(p)}` : `M${x1},${y(i)} C${x1},${y(i) + ROW * 0.8} ${x2},${y(p) - ROW * 0.8} ${x2},${y(p)}`;
          return <path key={cp.id} d={d} class={`lane-line lane-${(lanes.get(cp.branch) ?? 0) % 6}`} />;
        })}
        {checkpoints.map((cp, i) => (
          <circle
            key={cp.id}
            cx={x(cp)}
            cy={y(i)}
            r={cp.id === head.checkpointId ? 7 : 5}
            class={`dot lane-${(lanes.get(cp.branch) ?? 0) % 6}${cp.id === head.checkpointId ? " head" : ""}`}
          />
        ))}
      </svg>
      <ol class="rows">
        {checkpoints.map((cp) => (
          <li
            key={cp.id}
            class={`row${cp.id === props.selected ? " selected" : ""}`}
            style={{ height: `${ROW}px` }}
            data-seq={cp.seq}
            // biome-ignore lint/a11y/noNoninteractiveTabindex: the row opens its checkpoint from the keyboard too; it holds a checkbox, so it cannot be a <button>.
            tabIndex={0}
            onClick={() => props.onOpen(cp.id)}
            onKeyDown={(e) => {
              // Opened from the keyboard as by a click (the checkbox inside keeps its own keys).
              if ((e.key === "Enter" || e.key === " ") && e.target === e.currentTarget) {
                e.preventDefault();
                props.onOpen(cp.id);
              }
            }}
          >
            <input
              type="checkbox"
              title="compare"
              aria-label={`compare #${cp.seq}`}
              checked={props.compare.includes(cp.id)}
              onClick={(e) => e.stopPropagation()}
              onChange={() => props.onToggleCompare(cp.id)}
            />
            <div class="row-text">
              <div>
                <span class="seq">#{cp.seq}</span> <span class="message">{cp.message || <em class="muted">(no message)</em>}</span>
                {cp.id === head.checkpointId && <span class="badge head-badge">HEAD</span>}
                {heads.get(cp.id)?.map((b) => (
                  <span class="badge branch" key={b}>
                    {b}
                  </span>
                ))}
                {marks.get(cp.id)?.map((m) => (
                  <span class="badge milestone" key={m.key} title={m.title}>
                    {m.text}
                  </span>
                ))}
              </div>
              <div class="muted small">
                {cp.trigger} · {ago(cp.createdAt)}
                {cp.tags.map((t) => (
                  <span class="tag" key={t}>
                    {t}
                  </span>
                ))}
              </div>
            </div>
          </li>
        ))}
      </ol>
    </div>
  );
}

export function ago(iso: string): string {
  const s = Math.max(0, (Date.now() - Date.parse(iso)) / 1000);
  if (s < 45) return "just now";
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  return new Date(iso).toLocaleString();
}
