// The confirmation before a restore: says where HEAD goes and, for a linear restore, which
// checkpoints will be deleted; nothing happens until the user confirms.
import { useEffect, useRef, useState } from "preact/hooks";
import { api, type RestorePlan } from "./api.js";

export function RestoreDialog(props: { session: string; checkpointId: string; onDone: (message: string) => void; onCancel: () => void }) {
  const [linear, setLinear] = useState(false);
  const [plan, setPlan] = useState<RestorePlan | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const ref = useRef<HTMLDialogElement>(null);

  useEffect(() => {
    ref.current?.showModal();
  }, []);
  useEffect(() => {
    setPlan(null);
    api.restorePlan(props.session, props.checkpointId, linear).then(setPlan, (e: Error) => setError(e.message));
  }, [props.session, props.checkpointId, linear]);

  const confirm = async () => {
    setBusy(true);
    try {
      const r = await api.restore(props.session, props.checkpointId, linear);
      props.onDone(`Restored #${r.checkpoint.seq}${r.discarded.length ? `; deleted ${r.discarded.map((c) => `#${c.seq}`).join(", ")}` : ""}`);
    } catch (e) {
      setError((e as Error).message);
      setBusy(false);
    }
  };

  return (
    <dialog ref={ref} class="restore-dialog" onCancel={props.onCancel} aria-labelledby="restore-title">
      <h2 id="restore-title">Restore {plan ? `#${plan.checkpoint.seq}` : "checkpoint"}?</h2>
      {plan && !plan.restorable && (
        <p class="error">
          The page does not restore workspace files: run <code>forge files restore {plan.checkpoint.id.slice(0, 10)}</code> in the workspace.
        </p>
      )}
      <label class="linear">
        <input type="checkbox" checked={linear} onChange={(e) => setLinear((e.target as HTMLInputElement).checked)} /> Linear: delete every later checkpoint
      </label>
      {plan && (
        <div class="plan">
          {plan.linear ? (
            plan.discarded.length ? (
              <p>
                This will{" "}
                <strong>
                  delete {plan.discarded.length} checkpoint{plan.discarded.length === 1 ? "" : "s"}
                </strong>
                : <span class="discarded">{plan.discarded.map((c) => `#${c.seq}${c.message ? ` “${c.message}”` : ""}`).join(", ")}</span>, and continue branch{" "}
                <strong>{plan.head.branch}</strong> from #{plan.checkpoint.seq}.
              </p>
            ) : (
              <p>No later checkpoints on this branch: nothing will be deleted.</p>
            )
          ) : (
            <p>
              HEAD moves to #{plan.checkpoint.seq}
              {plan.head.branch ? ` (on ${plan.head.branch})` : ""}. Nothing is deleted: later checkpoints stay on their branch, and the next save starts a new
              branch.
            </p>
          )}
        </div>
      )}
      {error && <p class="error">{error}</p>}
      <div class="buttons">
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
        <button type="button" class="primary" disabled={!plan || busy || !plan.restorable} onClick={confirm}>
          Restore
        </button>
      </div>
    </dialog>
  );
}
