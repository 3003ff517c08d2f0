// How a checkpoint's state is shown: a conversation as a transcript, a reasoning session
// as its board, files as a tree, anything else as a collapsible JSON tree.
import type { ComponentChildren } from "preact";
import type { CheckpointDetail, FileEntry, MessageView, ReasoningState, StateView } from "./api.js";

export function StateViewer({ view }: { view: StateView }) {
  if (view.kind === "conversation") return <Transcript messages={view.messages} />;
  if (view.kind === "reasoning") return <ReasoningBoard state={view.state} />;
  return <JsonTree value={view.state} label="state" open />;
}

export function CheckpointBody({ detail, onBlame }: { detail: CheckpointDetail; onBlame?: (path: string) => void }) {
  return (
    <div class="checkpoint-body">
      <StateViewer view={detail.view} />
      {detail.files && <FileTree files={detail.files} {...(onBlame && { onBlame })} />}
    </div>
  );
}

export function Transcript({ messages }: { messages: MessageView[] }) {
  if (messages.length === 0) return <p class="muted">No messages yet.</p>;
  return (
    <ol class="transcript" aria-label="conversation">
      {messages.map((m, i) => (
        <Message key={i} message={m} />
      ))}
    </ol>
  );
}

export function Message({ message: m, mark }: { message: MessageView; mark?: "added" | "removed" }) {
  return (
    <li class={`msg role-${m.role}${mark ? ` ${mark}` : ""}`} data-role={m.role}>
      <div class="msg-head">
        <span class="role">{m.role}</span>
        {m.name && <span class="muted"> · {m.name}</span>}
        {m.toolCallId && <span class="muted"> · answers {m.toolCallId}</span>}
      </div>
      {m.text && <div class="msg-text">{m.text}</div>}
      {m.toolCalls?.map((c) => (
        <div class="tool-call" key={c.id}>
          <span class="tool-name">{c.name}</span>
          <span class="muted"> ({c.id})</span>
          <pre>{JSON.stringify(c.arguments, null, 2)}</pre>
        </div>
      ))}
    </li>
  );
}

const pct = (n: number) => `${Math.round(n * 100)}%`;

export function ReasoningBoard({ state }: { state: ReasoningState }) {
  const evidenceFor = (id: string) => state.evidence.filter((e) => e.hypothesisId === id);
  return (
    <div class="board">
      {state.task && (
        <p class="task">
          <strong>Task:</strong> {state.task}
        </p>
      )}
      <Section title={`Hypotheses (${state.hypotheses.length})`}>
        <div class="cards">
          {state.hypotheses.map((h) => (
            <div class={`card status-${h.status}`} key={h.id}>
              <div class="card-head">
                <span class="badge">{h.status}</span>
                <span class="confidence" title="confidence">
                  {pct(h.confidence)}
                </span>
              </div>
              <div class="meter">
                <div style={{ width: pct(h.confidence) }} />
              </div>
              <p>{h.statement}</p>
              <ul class="evidence">
                {evidenceFor(h.id).map((e) => (
                  <li key={e.id} class={`ev-${e.kind}`}>
                    <span class="badge small">{e.kind}</span> {e.content}
                  </li>
                ))}
              </ul>
            </div>
          ))}
        </div>
      </Section>
      <Section title={`Beliefs (${state.beliefs.length})`}>
        <ul class="plain">
          {state.beliefs.map((b) => (
            <li key={b.id} class={b.status === "retracted" ? "retracted" : ""}>
              {b.statement}{" "}
              <span class="muted">
                ({pct(b.confidence)}
                {b.dependsOn?.length ? `, depends on ${b.dependsOn.join(", ")}` : ""})
              </span>
            </li>
          ))}
        </ul>
      </Section>
      <Section title={`Knowledge gaps (${state.gaps.filter((g) => g.status === "open").length} open)`}>
        <ul class="plain">
          {state.gaps.map((g) => (
            <li key={g.id}>
              <span class={`badge small prio-${g.priority}`}>{g.priority}</span> {g.question}
              {g.answer && <span class="muted"> — {g.answer}</span>}
            </li>
          ))}
        </ul>
      </Section>
      <Section title={`Verifications (${state.verifications.length})`}>
        <ul class="plain">
          {state.verifications.map((v) => (
            <li key={v.id}>
              <span class={`badge small ${v.passed ? "pass" : "fail"}`}>{v.passed ? "passed" : "failed"}</span> {v.name}{" "}
              <code class="muted">{v.command.join(" ")}</code>
            </li>
          ))}
        </ul>
      </Section>
      {state.notes.length > 0 && (
        <Section title={`Notes (${state.notes.length})`}>
          <ul class="plain">
            {state.notes.map((n) => (
              <li key={n.id}>{n.text}</li>
            ))}
          </ul>
        </Section>
      )}
    </div>
  );
}

function Section({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <section class="section">
      <h3>{title}</h3>
      {children}
    </section>
  );
}

interface DirNode {
  dirs: Map<string, DirNode>;
  files: FileEntry[];
}

/** The files of a snapshot; with `onBlame`, each stored file offers its blame (which prompt wrote each line). */
export function FileTree({ files, onBlame }: { files: FileEntry[]; onBlame?: (path: string) => void }) {
  const root: DirNode = { dirs: new Map(), files: [] };
  for (const f of files) {
    const parts = f.path.split("/");
    let node = root;
    for (const p of parts.slice(0, -1)) {
      let next = node.dirs.get(p);
      if (!next) node.dirs.set(p, (next = { dirs: new Map(), files: [] }));
      node = next;
    }
    node.files.push(f);
  }
  return (
    <section class="section files">
      <h3>Files ({files.length})</h3>
      <Dir node={root} {...(onBlame && { onBlame })} />
    </section>
  );
}

function Dir({ node, onBlame }: { node: DirNode; onBlame?: (path: string) => void }) {
  return (
    <ul class="tree">
      {[...node.dirs].map(([name, child]) => (
        <li key={name}>
          <details open>
            <summary>{name}/</summary>
            <Dir node={child} {...(onBlame && { onBlame })} />
          </details>
        </li>
      ))}
      {node.files.map((f) => (
        <li key={f.path} class="file">
          {f.path.split("/").pop()} <span class="muted">{f.type === "l" ? "symlink" : f.type === "x" ? "too large, not stored" : bytes(f.size)}</span>
          {onBlame && f.type === "f" && (
            <button type="button" class="file-blame" title={`which prompt wrote each line of ${f.path}`} onClick={() => onBlame(f.path)}>
              blame
            </button>
          )}
        </li>
      ))}
    </ul>
  );
}

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

export function JsonTree({ value, label, open = false }: { value: unknown; label: string; open?: boolean }) {
  if (value === null || typeof value !== "object") {
    return (
      <div class="json-leaf">
        <span class="json-key">{label}:</span> <span class={`json-${value === null ? "null" : typeof value}`}>{JSON.stringify(value)}</span>
      </div>
    );
  }
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value as Record<string, unknown>);
  return (
    <details class="json" open={open}>
      <summary>
        <span class="json-key">{label}</span> <span class="muted">{Array.isArray(value) ? `[${entries.length}]` : `{${entries.length}}`}</span>
      </summary>
      <div class="json-children">
        {entries.map(([k, v]) => (
          <JsonTree key={k} value={v} label={k} />
        ))}
      </div>
    </details>
  );
}
