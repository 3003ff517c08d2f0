// The workspace kind: a snapshot's state is a summary of its files, so two snapshots compare
// by their file changes; restoring one writes a folder, which the web page leaves to the CLI.
import type { SessionKind } from "../kinds.js";

export const workspaceKind: SessionKind = {
  view: () => null,
  compare: (_a, _b, _session, files) => {
    if (files === null) return null;
    let total = 0;
    for (const n of files.values()) total += n;
    const parts = [...files].map(([k, n]) => `${n} ${k}`);
    return { kind: "files", summary: total ? `${total} file${total === 1 ? "" : "s"} changed: ${parts.join(", ")}` : "no file changed" };
  },
  restoresOnPage: false,
};
