// Two checkpoints side by side: typed changes for reasoning, message differences for
// conversations, unified diffs for files, JSON paths otherwise.
import type { CompareResult } from "./api.js";
import { Message } from "./views.js";

export function CompareView({ result }: { result: CompareResult }) {
  const s = result;
  return (
    <div class="compare">
      <h2>
        #{result.from.seq} → #{result.to.seq}
      </h2>
      <p class="summary">{s.summary}</p>
      {s.kind === "reasoning" && (
        <ul class="changes">
          {s.changes.map((c, i) => (
            <li key={i} class={`change ${c.type}`}>
              <span class="badge small">{c.type.replace(/-/g, " ")}</span> {describe(c)}
            </li>
          ))}
        </ul>
      )}
      {s.kind === "conversation" && (
        <div>
          <ol class="transcript">
            {s.removed.map((m, i) => (
              <Message key={`r${i}`} message={m} mark="removed" />
            ))}
            {s.added.map((m, i) => (
              <Message key={`a${i}`} message={m} mark="added" />
            ))}
          </ol>
        </div>
      )}
      {s.kind === "json" && (
        <table class="json-changes">
          <tbody>
            {s.changes.map((c, i) => (
              <tr key={i} class={c.kind}>
                <td class="kind">{c.kind}</td>
                <td>
                  <code>{c.at}</code>
                </td>
                <td class="old">{"oldValue" in c ? short(c.oldValue) : ""}</td>
                <td class="new">{"newValue" in c ? short(c.newValue) : ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {result.files && (
        <section class="section">
          <h3>Files ({result.files.length} changed)</h3>
          {result.files.map((f) => (
            <div class="file-diff" key={f.path}>
              <div class="file-diff-head">
                <span class={`badge small ${f.kind}`}>{f.kind}</span> {f.from ? `${f.from} → ` : ""}
                {f.path}
              </div>
              {f.patch ? <Patch text={f.patch} /> : <p class="muted">{f.note}</p>}
            </div>
          ))}
        </section>
      )}
    </div>
  );
}

function Patch({ text }: { text: string }) {
  const lines = text.split("\n").slice(4); // drop the ===/---/+++ header lines
  return (
    <pre class="patch">
      {lines.map((l, i) => (
        <div key={i} class={l.startsWith("+") ? "add" : l.startsWith("-") ? "del" : l.startsWith("@@") ? "hunk" : ""}>
          {l || " "}
        </div>
      ))}
    </pre>
  );
}

function describe(c: Record<string, unknown>): string {
  const text = (c["statement"] ?? c["content"] ?? c["question"] ?? c["name"] ?? c["text"] ?? c["command"] ?? "") as string;
  if ("old" in c && "new" in c) return `${c["id"] ?? ""} ${short(c["old"])} → ${short(c["new"])}`.trim();
  return `${text}${c["passed"] === true ? " (passed)" : c["passed"] === false ? " (failed)" : ""}`;
}

function short(v: unknown): string {
  const s = typeof v === "string" ? v : JSON.stringify(v);
  return s === undefined ? "" : s.length > 120 ? `${s.slice(0, 117)}…` : s;
}
