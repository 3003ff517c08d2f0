// The sessions list's button for `forge agent import`: the project's agent sessions from before
// Forge, out of the hosts' own transcripts, with what it did as a notice.
import { useState } from "preact/hooks";
import { api } from "./api.js";

export function AgentImportButton(props: { onDone: (text: string) => void; onError: (e: unknown) => void }) {
  const [busy, setBusy] = useState(false);
  const run = async () => {
    setBusy(true);
    try {
      const r = await api.importAgents();
      const failed = r.sessions.filter((s) => s.status === "failed");
      const { new: fresh, added, entries, prompts } = r.imported;
      const what =
        fresh + added === 0
          ? r.sessions.length === 0
            ? "No earlier agent sessions of this project found."
            : `Nothing new: ${r.sessions.length} agent session${r.sessions.length === 1 ? "" : "s"} already imported.`
          : `Imported ${entries} entries and ${prompts} prompts: ${fresh} new session${fresh === 1 ? "" : "s"}${added > 0 ? `, ${added} added to` : ""}. ${r.note}.`;
      props.onDone(failed.length > 0 ? `${what} ${failed.length} transcript(s) could not be read: ${failed.map((s) => s.error).join("; ")}` : what);
    } catch (e) {
      props.onError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <button type="button" class="link small" disabled={busy} onClick={run} title="forge agent import: sessions your agents recorded here before Forge">
      {busy ? "Importing…" : "Import earlier agent sessions"}
    </button>
  );
}
