// The agent hosts Forge plugs into (Claude Code, Codex, Gemini CLI, Cursor, GitHub Copilot
// CLI, OpenCode, Factory Droid, Windsurf, Cline, Kiro), and the contract between their three parts:
//  - config/<host>.ts: how `forge enable` wires Forge into the host's own project files
//    (hooks, MCP server) and how `forge disable` takes exactly that back out;
//  - capture/<host>.ts: what the host tells a hook (its payload, normalized to HostEvent)
//    and what it writes down (its transcript, read incrementally into conversation
//    messages, and cut at a prompt for a rewind);
//  - capture.ts / agent.ts: what Forge does with them (one timeline per host session).

/** The hosts, by the id used on the command line (`forge enable claude-code`, `forge hook prompt --host codex`). */
export const HOST_IDS = ["claude-code", "codex", "gemini-cli", "cursor", "copilot", "opencode", "factory-droid", "windsurf", "cline", "kiro"] as const;
export type HostId = (typeof HOST_IDS)[number];

/** Other names the command line takes for a host (`forge enable droid`). */
export const HOST_ALIASES: Readonly<Record<string, HostId>> = {
  droid: "factory-droid",
  factory: "factory-droid",
  cascade: "windsurf",
  "kiro-cli": "kiro",
  "kiro-ide": "kiro",
};

/** The host a command-line name means (an id or an alias), or undefined. */
export function hostIdOf(name: string): HostId | undefined {
  if ((HOST_IDS as readonly string[]).includes(name)) return name as HostId;
  return Object.hasOwn(HOST_ALIASES, name) ? HOST_ALIASES[name] : undefined;
}

/**
 * What Forge does at a host's event; `forge hook <kind> --host <id>` is what the host runs.
 *  - session-start: a host session starts, resumes, or was cleared/compacted (the brief is printed for the host when it reads stdout)
 *  - prompt:        the user submitted a prompt (a checkpoint of that moment: files, conversation, reasoning)
 *  - tool:          a tool ran (its file changes are snapshotted, the transcript imported)
 *  - stop:          the agent finished its turn
 *  - pre-compact:   the host is about to compact the context
 *  - session-end:   the host session ended
 */
export const CAPTURE_KINDS = ["session-start", "prompt", "tool", "stop", "pre-compact", "session-end"] as const;
export type CaptureKind = (typeof CAPTURE_KINDS)[number];

/** A host's hook payload, normalized. Every field but `host`, `kind` and `raw` may be missing. */
export interface HostEvent {
  readonly host: HostId;
  readonly kind: CaptureKind;
  /** The host's own session (conversation) id. */
  readonly sessionId?: string;
  /** The folder the host runs in (absolute). */
  readonly cwd?: string;
  /** The host's transcript file for this session, when the payload names it or the host keeps it in a known place. */
  readonly transcriptPath?: string;
  /** prompt: the text the user submitted. */
  readonly prompt?: string;
  /** tool: what ran. */
  readonly tool?: {
    readonly name: string;
    /** The host's id of this call (Claude Code's `tool_use_id`), when the payload gives one: the transcript's tool call with the same id. */
    readonly id?: string;
    readonly input?: unknown;
    readonly response?: unknown;
    /** Whether the tool may have written files (edit tools, shells, unknown tools: true; reads and searches: false). */
    readonly mayWrite: boolean;
    /** The paths an edit tool says it wrote (as given: relative to cwd or absolute). */
    readonly editedPaths: readonly string[];
  };
  /** session-start: "startup", "resume", "clear" or "compact" (the host's word when it has one). */
  readonly source?: string;
  /** pre-compact: "manual" or "auto". */
  readonly trigger?: string;
  /** The payload as the host sent it (own properties only). */
  readonly raw: Readonly<Record<string, unknown>>;
}

/** Where reading a transcript got to: opaque to the caller, stored with the session between hooks. JSON. */
export type TranscriptCursor = Readonly<Record<string, string | number>>;

/** One entry of a host's transcript, as a conversation message. */
export interface CapturedMessage {
  /**
   * Stable and unique within the host session (the host's own uuid/id for the entry when it
   * has one, else one derived from its position and content): the same entry read twice has
   * the same key, so it is stored once.
   */
  readonly key: string;
  /** A conversation message (src/domains/conversation/model.ts); an entry Forge does not know is a "system" message whose content is one part `{type: "host-record", host, record}` holding it whole. */
  readonly message: import("../../domains/conversation/model.js").Message;
  /** Whether this entry is a prompt the user typed (not a tool result, not a host-injected message): prompts are numbered 1, 2, … for rewind. */
  readonly prompt: boolean;
  /** When the host wrote it (ISO 8601), if it says. */
  readonly at?: string;
}

export interface TranscriptRead {
  /** The entries complete since `cursor`, in order. A last line still being written is not among them. */
  readonly messages: readonly CapturedMessage[];
  /** Pass it to the next read: it starts after the last complete entry returned. */
  readonly cursor: TranscriptCursor;
  /**
   * True when the file was replaced or shortened since `cursor` (a new file at the path, a
   * rewrite that dropped entries): the messages are read again from its start, with the same keys.
   */
  readonly reset?: boolean;
}

/** How one host's transcript is read and cut. */
export interface TranscriptFormat {
  /** Reads the entries after `cursor` (null: from the start). A missing file is an error naming it. */
  read(path: string, cursor: TranscriptCursor | null): TranscriptRead;
  /**
   * Writes a copy of the transcript that ends just before user prompt `prompt` (1-based; the
   * prompt itself and everything after it left out) where the host will find it to resume,
   * and says how to resume it. The original file is not changed.
   */
  cut(path: string, prompt: number, options: { cwd: string }): { path: string; sessionId: string; resume: string };
}

/** What one host's capture module (capture/<host>.ts) exports as `capture`. */
export interface HostCapture {
  /** The host's payload at Forge's `kind` event, normalized. Unknown fields are ignored (kept in `raw`); a missing field is left out, never guessed. */
  normalize(kind: CaptureKind, payload: Readonly<Record<string, unknown>>): HostEvent;
  /**
   * Why a payload that reached this host's hooks is another host's, when it is (other hosts
   * run this host's hook files too): its own hooks capture it, and this one skips it.
   */
  foreign?(payload: Readonly<Record<string, unknown>>): string | undefined;
  /** How the host's transcript is read and cut, when it keeps one in a file Forge can read. */
  readonly transcript?: TranscriptFormat;
  /** The session's transcript file when the payload does not name it (a host that keeps them in a known place); undefined when not found. */
  locateTranscript?(event: HostEvent): string | undefined;
  /**
   * The host writes a prompt to its transcript before its prompt hook runs (Claude Code): the
   * last prompt entry a prompt hook reads is that prompt's, whatever its text. Other hosts'
   * is recognized by the prompt's text (turns.ts).
   */
  readonly promptBeforeHook?: boolean;
  /**
   * What the hook prints on stdout at this event, in the host's output protocol, given
   * `context`: text for the agent's context ("" for none). Some hosts parse stdout as JSON
   * and need an object even when there is nothing to say.
   */
  output(kind: CaptureKind, context: string): string;
  /**
   * For a host whose transcript no hook can read: the conversation entries the payload itself
   * carries (the prompt; the tool call with its input and result; the reply), in order, their
   * keys (and tool call ids) made from `key`, which names the event's place in the
   * conversation. Forge stores them after the event's checkpoint.
   */
  payloadMessages?(event: HostEvent, key: string): readonly CapturedMessage[];
  /**
   * For a host whose payloads name no session (Kiro): Forge keeps one session per project for
   * it, a new one at each session-start (see implicit-session.ts).
   */
  readonly implicitSession?: boolean;
}

/** What one host's config module (config/<host>.ts) exports as `config`: how `forge enable` wires the host. */
export interface HostConfigSpec {
  readonly id: HostId;
  /** The host's name for people ("Claude Code"). */
  readonly label: string;
  /** The documentation each file format and payload field was confirmed from, with its version or date. */
  readonly docs: readonly { readonly url: string; readonly version: string }[];
  /** Paths (relative to the project root) whose presence says the project uses the host: `forge enable` with no host named enables those. */
  readonly detect: readonly string[];
  /**
   * The edits `forge enable` makes (in the project root), for Forge run as `forge` (a command,
   * e.g. "forge"). `project` is what the project holds, for a host whose files depend on it
   * (which of two hooks files the host reads, the agent files it has).
   */
  edits(forge: string, project?: ProjectView): readonly ConfigEdit[];
}

/** The project's files as a config module may look at them. */
export interface ProjectView {
  /** A file's text (relative to the project root), null when there is none. */
  read(file: string): string | null;
  /** The names of the files (not folders) in a folder, sorted; [] when there is no such folder. */
  list(folder: string): readonly string[];
}

/** One project file `forge enable` edits and `forge disable` takes back. */
export type ConfigEdit =
  | { readonly file: string; readonly format: "json"; readonly ops: readonly JsonOp[] }
  /** A TOML file: keys set in tables (the table is created when missing); a key the user set already is left as it is. */
  | { readonly file: string; readonly format: "toml"; readonly ops: readonly TomlOp[] }
  /** Any other text file (a plugin source): Forge owns the whole file; disable deletes it when it is still Forge's. */
  | { readonly file: string; readonly format: "owned"; readonly text: string }
  /**
   * An executable hook script the host runs by its name (Cline's `.clinerules/hooks/<Hook>`).
   * None there: Forge's `script(null)` is written, mode 755. The user's own there: it moves
   * beside it to `<name>.forge-chained` (same bytes, same mode) and `script("<name>.forge-chained")`
   * runs Forge and then it; disable puts the user's file back as it was, mode included.
   */
  | { readonly file: string; readonly format: "script"; readonly script: (chained: string | null) => string };

export type JsonOp =
  /** Adds `value` to the array at `path` (created, with the objects above it, when missing), unless an equal element is there. */
  | { readonly op: "append"; readonly path: readonly string[]; readonly value: unknown }
  /** Sets the key at `path` (the objects above it created when missing) when it is missing or already Forge's. */
  | { readonly op: "set"; readonly path: readonly string[]; readonly value: unknown };

export interface TomlOp {
  /** The table ("features", "mcp_servers.forge"). */
  readonly table: string;
  readonly key: string;
  readonly value: string | number | boolean | readonly string[];
}
