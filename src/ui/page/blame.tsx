// Beside a file of the tree: which prompt of which captured agent session wrote each line
// (`forge blame`). A run of lines from one origin is tagged once; the tag's tooltip is the
// prompt, and a click opens the prompt, the tool call and the snapshot under the line.
import { useEffect, useState } from "preact/hooks";
import "./blame.css";
import { api, type BlameLine, type BlameResult } from "./api.js";

/** The key of a line's origin: lines with the same key came from the same step. */
const originOf = (l: BlameLine) =>
  l.agent ? `a:${l.session?.name}:${l.prompt?.number}:${l.tool?.id ?? l.tool?.name}:${l.checkpoint?.id}` : `h:${l.note}:${l.checkpoint?.id}`;

export function BlameView(props: { path: string; snapshot: { id: string; seq: number } | null; onClose: () => void }) {
  const [atSnapshot, setAtSnapshot] = useState(props.snapshot !== null);
  const [result, setResult] = useState<BlameResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [open, setOpen] = useState<number | null>(null);
  const at = atSnapshot && props.snapshot ? props.snapshot.id : undefined;

  useEffect(() => {
    setResult(null);
    setError(null);
    setOpen(null);
    api.blame(props.path, at).then(setResult, (e: unknown) => setError((e as Error).message));
  }, [props.path, at]);

  const agentLines = result?.lines.filter((l) => l.agent).length ?? 0;
  return (
    <section class="section blame" aria-label={`blame of ${props.path}`}>
      <div class="blame-head">
        <h3>
          Blame: <code>{props.path}</code>
        </h3>
        {props.snapshot && (
          <label class="small">
            <input type="checkbox" checked={atSnapshot} onChange={(e) => setAtSnapshot((e.target as HTMLInputElement).checked)} /> as in snapshot #
            {props.snapshot.seq} (else as it is now)
          </label>
        )}
        <button type="button" class="link" onClick={props.onClose} aria-label="close blame">
          ×
        </button>
      </div>
      {error && <p class="notice error">{error}</p>}
      {!result && !error && <p class="muted">Reading the file's history…</p>}
      {result && (
        <>
          <p class="muted small blame-summary">
            {agentLines} of {result.lines.length} lines written by an agent · {result.versions} versions read
            {result.at ? ` · as at snapshot #${result.at.seq}` : " · as it is now"}
          </p>
          <table class="blame-lines">
            <tbody>
              {result.lines.map((l, i) => {
                const first = i === 0 || originOf(result.lines[i - 1] as BlameLine) !== originOf(l);
                return [
                  <tr
                    key={l.line}
                    class={`blame-line ${l.agent ? "by-agent" : "by-other"}${first ? " first" : ""}`}
                    data-line={l.line}
                    data-agent={String(l.agent)}
                  >
                    <td class="who">{first && <OriginTag line={l} open={open === l.line} onToggle={() => setOpen(open === l.line ? null : l.line)} />}</td>
                    <td class="ln">{l.line}</td>
                    <td class="code">
                      <code>{l.text}</code>
                    </td>
                  </tr>,
                  open === l.line && (
                    <tr key={`${l.line}-detail`} class="blame-detail">
                      <td colSpan={3}>
                        <OriginDetail line={l} />
                      </td>
                    </tr>
                  ),
                ];
              })}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}

function OriginTag(props: { line: BlameLine; open: boolean; onToggle: () => void }) {
  const l = props.line;
  const label = l.agent ? `P${l.prompt?.number ?? "?"} ${l.tool?.name ?? ""}` : "not an agent";
  const title = l.agent ? `prompt ${l.prompt?.number ?? "?"}: ${l.prompt?.text ?? "(text not captured)"}` : l.note;
  return (
    <button type="button" class={`origin-tag${l.agent ? " agent" : ""}`} title={title} aria-expanded={props.open} onClick={props.onToggle}>
      {label}
    </button>
  );
}

function OriginDetail({ line: l }: { line: BlameLine }) {
  if (!l.agent)
    return (
      <div class="origin-detail">
        <p>
          <strong>Not written by an agent:</strong> {l.note}
        </p>
        {l.checkpoint && (
          <p class="muted small">
            first seen in snapshot #{l.checkpoint.seq} ({l.checkpoint.message})
          </p>
        )}
      </div>
    );
  return (
    <div class="origin-detail">
      <p>
        <strong>
          Prompt {l.prompt?.number ?? "?"} of {l.session?.host} session {l.session?.id}
        </strong>
        {l.inferred && <span class="muted"> (matched by time)</span>}
      </p>
      <blockquote class="prompt-text">{l.prompt?.text ?? "(the prompt's text was not captured)"}</blockquote>
      <p>
        Tool call <span class="tool-name">{l.tool?.name}</span>
        {l.tool?.id && <span class="muted"> ({l.tool.id})</span>}
      </p>
      {l.tool?.input !== null && l.tool?.input !== undefined && <pre class="tool-input">{JSON.stringify(l.tool.input, null, 2)}</pre>}
      {l.checkpoint && (
        <p class="muted small">
          snapshot #{l.checkpoint.seq} {l.checkpoint.id} · rewind:{" "}
          <code>
            forge rewind {l.session?.id} --to-prompt {l.prompt?.number}
          </code>
        </p>
      )}
    </div>
  );
}
