// Forge's web page: sessions on the left; a session's timeline; a checkpoint's state by
// kind; compare two; restore behind a confirmation; for a conversation, append a message
// and save a checkpoint. Follows other processes' work through server-sent events.
import { render } from "preact";
import { useCallback, useEffect, useState } from "preact/hooks";
import "./app.css";
import { AgentImportButton } from "./agent-import.js";
import { api, type CheckpointDetail, type CompareResult, type SearchResult, type SessionDetail, type SessionSummary } from "./api.js";
import { BlameView } from "./blame.js";
import { CompareView } from "./compare.js";
import { RestoreDialog } from "./restore-dialog.js";
import { SearchBox, SearchResults } from "./search.js";
import { ago, Timeline } from "./timeline.js";
import { CheckpointBody, StateViewer } from "./views.js";

function App() {
  const [sessions, setSessions] = useState<SessionSummary[]>([]);
  const [current, setCurrent] = useState<string | null>(() => new URLSearchParams(location.hash.slice(1)).get("session"));
  const [detail, setDetail] = useState<SessionDetail | null>(null);
  const [opened, setOpened] = useState<CheckpointDetail | null>(null);
  const [compare, setCompare] = useState<string[]>([]);
  const [comparison, setComparison] = useState<CompareResult | null>(null);
  const [restoring, setRestoring] = useState<string | null>(null);
  const [notice, setNotice] = useState<{ text: string; error?: boolean } | null>(null);
  const [found, setFound] = useState<SearchResult | null>(null);
  const [blaming, setBlaming] = useState<string | null>(null);
  const [tick, setTick] = useState(0);

  const fail = useCallback((e: unknown) => setNotice({ text: (e as Error).message, error: true }), []);

  useEffect(() => {
    api.sessions().then((r) => {
      // Most recently changed first.
      setSessions([...r.sessions].sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : 0)));
      setCurrent((c) => c ?? r.sessions[0]?.name ?? null);
    }, fail);
  }, [tick]);

  useEffect(() => {
    if (!current) return;
    history.replaceState(null, "", `#session=${encodeURIComponent(current)}`);
    api.session(current).then(setDetail, fail);
  }, [current, tick]);

  useEffect(() => api.events(() => setTick((t) => t + 1)), []);

  const open = (id: string) => {
    if (!current) return;
    setComparison(null);
    api.checkpoint(current, id).then(setOpened, fail);
  };
  // Keep the opened checkpoint when the timeline reloads; drop it if it was deleted.
  useEffect(() => {
    if (opened && detail && !detail.checkpoints.some((c) => c.id === opened.checkpoint.id)) setOpened(null);
  }, [detail]);
  // A blame belongs to the checkpoint whose file tree it was opened from.
  useEffect(() => setBlaming(null), [opened?.checkpoint.id]);

  const toggleCompare = (id: string) => setCompare((c) => (c.includes(id) ? c.filter((x) => x !== id) : [...c, id].slice(-2)));
  const runCompare = () => {
    if (!current || compare.length !== 2 || !detail) return;
    // Older first, whichever order they were ticked in.
    const seq = (id: string) => detail.checkpoints.find((c) => c.id === id)?.seq ?? 0;
    const [a, b] = [...compare].sort((x, y) => seq(x) - seq(y)) as [string, string];
    api.compare(current, a, b).then((r) => {
      setComparison(r);
      setOpened(null);
    }, fail);
  };

  const select = (name: string) => {
    setCurrent(name);
    setOpened(null);
    setComparison(null);
    setCompare([]);
  };

  return (
    <div class="layout">
      <header class="top">
        <h1>Forge</h1>
        <span class="muted">checkpoints and time travel</span>
        <SearchBox onResult={setFound} onError={fail} />
      </header>
      <nav class="sessions" aria-label="sessions">
        <h2>Sessions</h2>
        <ul>
          {sessions.map((s) => (
            <li key={s.name}>
              <button type="button" class={`session${s.name === current ? " active" : ""}`} onClick={() => select(s.name)}>
                <span class="session-name">{s.name}</span>
                <span class="muted small">
                  {s.kind} · {s.checkpoints} checkpoint{s.checkpoints === 1 ? "" : "s"} · {ago(s.updatedAt)}
                </span>
              </button>
            </li>
          ))}
        </ul>
        {sessions.length === 0 && <p class="muted">No sessions in this store yet.</p>}
        <AgentImportButton
          onDone={(text) => {
            setNotice({ text });
            setTick((t) => t + 1);
          }}
          onError={fail}
        />
      </nav>
      <main class="main">
        {notice && (
          <div class={`notice${notice.error ? " error" : ""}`} role="status">
            {notice.text}
            <button type="button" class="link" onClick={() => setNotice(null)} aria-label="dismiss">
              ×
            </button>
          </div>
        )}
        {found && (
          <SearchResults
            result={found}
            onClose={() => setFound(null)}
            onOpen={(hit) => {
              setFound(null);
              select(hit.checkpoint.session);
              api.checkpoint(hit.checkpoint.session, hit.checkpoint.id).then(setOpened, fail);
            }}
          />
        )}
        {detail && !found && (
          <div class="columns">
            <section class="timeline-col" aria-label="timeline">
              <div class="col-head">
                <h2>{detail.session.name}</h2>
                <span class="badge">{detail.session.kind}</span>
                <button type="button" class="compare-btn" disabled={compare.length !== 2} onClick={runCompare}>
                  Compare {compare.length === 2 ? "2" : `(${compare.length}/2)`}
                </button>
              </div>
              {detail.session.kind === "conversation" && current && (
                <ChatPanel session={current} onChange={() => setTick((t) => t + 1)} onError={fail} onNotice={(t) => setNotice({ text: t })} />
              )}
              <Timeline detail={detail} selected={opened?.checkpoint.id ?? null} compare={compare} onOpen={open} onToggleCompare={toggleCompare} />
            </section>
            <section class="detail-col" aria-label="details">
              {comparison && <CompareView result={comparison} />}
              {opened && !comparison && (
                <div class="opened">
                  <div class="col-head">
                    <h2>
                      #{opened.checkpoint.seq} {opened.checkpoint.message}
                    </h2>
                    <button type="button" class="primary restore-btn" onClick={() => setRestoring(opened.checkpoint.id)}>
                      Restore…
                    </button>
                  </div>
                  <p class="muted small">
                    {opened.checkpoint.id} · {opened.checkpoint.branch} · {opened.checkpoint.trigger} · {new Date(opened.checkpoint.createdAt).toLocaleString()}
                  </p>
                  <CheckpointBody detail={opened} onBlame={setBlaming} />
                  {blaming && (
                    <BlameView
                      key={blaming}
                      path={blaming}
                      // A workspace snapshot's file can be blamed as it was then; any other checkpoint's files, as they are now.
                      snapshot={detail.session.kind === "workspace" ? { id: opened.checkpoint.id, seq: opened.checkpoint.seq } : null}
                      onClose={() => setBlaming(null)}
                    />
                  )}
                </div>
              )}
              {!opened && !comparison && detail.working && (
                <div class="working">
                  <h2>Current state</h2>
                  <StateViewer view={detail.working.view} />
                </div>
              )}
              {!opened && !comparison && !detail.working && <p class="muted">Open a checkpoint from the timeline, or tick two to compare.</p>}
            </section>
          </div>
        )}
      </main>
      {restoring && current && (
        <RestoreDialog
          session={current}
          checkpointId={restoring}
          onCancel={() => setRestoring(null)}
          onDone={(text) => {
            setRestoring(null);
            setOpened(null);
            setNotice({ text });
            setTick((t) => t + 1);
          }}
        />
      )}
    </div>
  );
}

function ChatPanel(props: { session: string; onChange: () => void; onError: (e: unknown) => void; onNotice: (text: string) => void }) {
  const [role, setRole] = useState("user");
  const [text, setText] = useState("");
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const append = async (e: Event) => {
    e.preventDefault();
    if (!text.trim()) return;
    try {
      await api.append(props.session, { role, content: text });
      setText("");
      props.onChange();
    } catch (err) {
      props.onError(err);
    }
  };
  const save = async () => {
    try {
      const r = await api.save(props.session, name.trim() || undefined, description.trim() || undefined);
      setName("");
      setDescription("");
      props.onNotice(`Saved #${r.checkpoint.seq} “${r.checkpoint.message}”`);
      props.onChange();
    } catch (err) {
      props.onError(err);
    }
  };
  return (
    <div class="chat-panel">
      <form class="append" onSubmit={append}>
        <select aria-label="role" value={role} onChange={(e) => setRole((e.target as HTMLSelectElement).value)}>
          <option value="user">user</option>
          <option value="assistant">assistant</option>
          <option value="system">system</option>
        </select>
        <textarea aria-label="message" placeholder="Type a message…" value={text} onInput={(e) => setText((e.target as HTMLTextAreaElement).value)} rows={2} />
        <button type="submit">Append</button>
      </form>
      <div class="save">
        <input
          aria-label="checkpoint name"
          placeholder="Checkpoint name (optional)"
          value={name}
          onInput={(e) => setName((e.target as HTMLInputElement).value)}
        />
        <input
          aria-label="description"
          placeholder="Description (optional)"
          value={description}
          onInput={(e) => setDescription((e.target as HTMLInputElement).value)}
        />
        <button type="button" class="primary" onClick={save}>
          Save checkpoint
        </button>
      </div>
    </div>
  );
}

render(<App />, document.getElementById("app") as HTMLElement);
