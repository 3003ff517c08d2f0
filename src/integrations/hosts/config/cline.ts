// How `forge enable cline` wires Cline: an executable script per hook in the project's
// `.clinerules/hooks/`, named after the hook, each running `forge hook <kind> --host cline`
// with Cline's JSON on stdin. A hook script of the user's keeps running: it moves beside
// Forge's as `<Hook>.forge-chained` (its bytes and mode kept) and Forge's script runs it
// after Forge, with the same input, its answer being the one Cline reads. `forge disable
// cline` puts the user's scripts back as they were and deletes Forge's own.
//
// Followed: https://docs.cline.bot/features/hooks/hook-reference (cline/cline
// docs/features/hooks/hook-reference.mdx at 2048a07, read 2026-11-25) and
// https://docs.cline.bot/customization/hooks: hooks are files with the hook's exact name and
// no extension in `.clinerules/hooks/` (project) or the global hooks folder; TaskStart,
// TaskResume, TaskCancel, TaskComplete, PreToolUse, PostToolUse, UserPromptSubmit, PreCompact;
// JSON in on stdin, one JSON object out as the last thing on stdout ({"cancel": false, …});
// a non-zero exit or output that is not JSON blocks the action — so Forge's script answers
// {"cancel": false} itself when `forge` is not on the PATH. The scripts are POSIX sh: the
// docs do not say how Cline runs a hook on Windows. Cline reads MCP servers from its own
// settings, not the project: no MCP server is registered.
import { ForgeError } from "../../../core/errors.js";
import type { CaptureKind, ConfigEdit, HostConfigSpec, ProjectView } from "../types.js";
import { hookCommand } from "./entries.js";

/** Cline's hooks Forge runs at, and the Forge event each runs. */
export const CLINE_HOOKS: Readonly<Record<string, CaptureKind>> = {
  TaskStart: "session-start",
  TaskResume: "session-start",
  UserPromptSubmit: "prompt",
  PostToolUse: "tool",
  TaskComplete: "stop",
  TaskCancel: "stop",
  PreCompact: "pre-compact",
};

/** Where project hooks live. */
export const CLINE_HOOKS_DIR = ".clinerules/hooks";

/** Forge's script for `hook`; `chained` names the user's own script beside it, when there is one. */
export function clineScript(forge: string, hook: string, kind: CaptureKind, chained: string | null): string {
  const program = forge.split(/\s+/)[0] ?? forge;
  const run = hookCommand(forge, kind, "cline");
  const head = ["#!/bin/sh", `# Forge's Cline ${hook} hook, written by \`forge enable cline\` (\`forge disable cline\` takes it out again).`];
  if (chained === null) {
    return [
      ...head,
      `# It runs \`${run}\` with Cline's JSON; Cline reads its answer.`,
      `if command -v ${program} >/dev/null 2>&1; then exec ${run}; fi`,
      "cat >/dev/null",
      `echo '{"cancel": false}'`,
      "",
    ].join("\n");
  }
  return [
    ...head,
    `# It runs \`${run}\` with Cline's JSON, then your own ${hook} hook, ${chained}, whose answer Cline reads.`,
    "input=$(cat)",
    `if command -v ${program} >/dev/null 2>&1; then printf '%s\\n' "$input" | ${run} >/dev/null || true; fi`,
    `yours="$(dirname "$0")/${chained}"`,
    `if [ -x "$yours" ]; then printf '%s\\n' "$input" | "$yours" "$@"; exit $?; fi`,
    `echo '{"cancel": false}'`,
    "",
  ].join("\n");
}

/** Cline, wired through hook scripts in the project's `.clinerules/hooks/`. */
export const config: HostConfigSpec = {
  id: "cline",
  label: "Cline",
  docs: [
    {
      url: "https://docs.cline.bot/features/hooks/hook-reference",
      version: "cline/cline docs@2048a07, read 2026-11-25: hook files, stdin fields, {cancel, contextModification, errorMessage}",
    },
    { url: "https://docs.cline.bot/customization/hooks", version: "read 2026-11-25: the eight hook types, .clinerules/hooks/ for the project" },
  ],
  // ".clinerules/" (trailing slash) exists only as a folder: an older single .clinerules file is no sign of hooks.
  detect: [".clinerules/", ".clineignore"],
  edits(forge: string, project?: ProjectView): readonly ConfigEdit[] {
    if (project?.list(".").includes(".clinerules")) {
      throw new ForgeError("INVALID_ARGUMENT", "the project's .clinerules is a file, and Cline reads project hooks from the folder .clinerules/hooks/", {
        hint: "turn .clinerules into a folder (your rules as .clinerules/rules.md), then run forge enable cline again (nothing was changed)",
        data: { path: ".clinerules" },
      });
    }
    return Object.entries(CLINE_HOOKS).map(([hook, kind]) => ({
      file: `${CLINE_HOOKS_DIR}/${hook}`,
      format: "script",
      script: (chained: string | null) => clineScript(forge, hook, kind, chained),
    }));
  },
};
