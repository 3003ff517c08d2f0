// The page's side of the HTTP API: fetch with the token every API call needs, JSON in and
// out, and the shapes the server sends: the results of Forge's operations (src/operations/).

export interface SessionSummary {
  name: string;
  kind: string;
  checkpoints: number;
  createdAt: string;
  updatedAt: string;
}

export interface CheckpointJson {
  id: string;
  seq: number;
  parentId: string | null;
  branch: string;
  createdAt: string;
  message: string;
  tags: string[];
  trigger: string;
  metadata: Record<string, unknown>;
  filesRoot: string | null;
  sizes: { logicalBytes: number; newBytes: number };
}

export interface MessageView {
  role: string;
  text: string;
  name?: string;
  toolCalls?: { id: string; name: string; arguments: unknown }[];
  toolCallId?: string;
}

export type StateView = { kind: "reasoning"; state: ReasoningState } | { kind: "conversation"; messages: MessageView[] } | { kind: "json"; state: unknown };

export interface ReasoningState {
  task: string | null;
  hypotheses: { id: string; statement: string; status: string; confidence: number; evidence?: string[] }[];
  evidence: { id: string; hypothesisId: string | null; kind: string; content: string }[];
  beliefs: { id: string; statement: string; status: string; confidence: number; dependsOn?: string[] }[];
  gaps: { id: string; question: string; priority: string; status: string; answer: string | null }[];
  verifications: { id: string; name: string; passed: boolean; command: string[]; exitCode: number | null; hypothesisId: string | null }[];
  notes: { id: string; text: string; tags: string[] }[];
}

export interface SessionDetail {
  session: { name: string; kind: string; createdAt: string };
  head: { branch: string | null; checkpointId: string | null };
  branches: { name: string; headId: string }[];
  milestones: { name: string; fromId: string; toId: string; description: string }[];
  checkpoints: CheckpointJson[];
  working: { version: number; view: StateView } | null;
}

export interface FileEntry {
  path: string;
  type: string;
  size: number;
  mode: string;
}

export interface CheckpointDetail {
  checkpoint: CheckpointJson;
  view: StateView;
  files: FileEntry[] | null;
}

export interface JsonChange {
  at: string;
  kind: "added" | "removed" | "changed";
  oldValue?: unknown;
  newValue?: unknown;
}

export type ComparisonView =
  | { kind: "reasoning"; changes: ({ type: string } & Record<string, unknown>)[]; summary: string }
  | { kind: "conversation"; common: number; removed: MessageView[]; added: MessageView[]; summary: string }
  | { kind: "json"; changes: JsonChange[]; summary: string }
  | { kind: "files"; summary: string };

/** The state's comparison (by kind) with both checkpoints and the files: the shape `checkpoint diff --json` prints too. */
export type CompareResult = ComparisonView & {
  from: CheckpointJson;
  to: CheckpointJson;
  files: { path: string; kind: string; from?: string; patch?: string | null; note?: string }[] | null;
};

export interface RestorePlan {
  checkpoint: CheckpointJson;
  head: { branch: string | null; checkpointId: string };
  discarded: CheckpointJson[];
  linear: boolean;
  restorable: boolean;
}

export interface HitCheckpoint {
  id: string;
  seq: number;
  session: string;
  time: string;
}

export interface SearchHit {
  checkpoint: HitCheckpoint;
  first: HitCheckpoint;
  last: HitCheckpoint;
  kind: string;
  sessionKind: string;
  where: string;
  snippet: string;
  highlights: [number, number][];
  score: number;
}

/** What `forge search --json` prints. */
export interface SearchResult {
  query: string;
  order: string;
  results: SearchHit[];
  indexed: number;
}

/** One line as `forge blame --json` gives it. */
export interface BlameLine {
  line: number;
  text: string;
  agent: boolean;
  prompt: { number: number; text: string | null } | null;
  session: { name: string; host: string; id: string } | null;
  tool: { name: string; id: string | null; input: unknown } | null;
  checkpoint: { id: string; seq: number; createdAt: string; message: string } | null;
  promptCheckpoint: string | null;
  inferred: boolean;
  note: string;
}

/** What `forge blame --json` prints. */
export interface BlameResult {
  path: string;
  root: string;
  lines: BlameLine[];
  at: { id: string; seq: number; createdAt: string; message: string } | null;
  total: number;
  versions: number;
}

/** What `forge agent import --json` prints (the fields the page shows). */
export interface AgentImportResult {
  since: string | null;
  sessions: { host: string; sessionId: string; session: string; status: string; added: number; prompts: number; error?: string }[];
  imported: { new: number; added: number; entries: number; prompts: number };
  note: string;
}

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
  ) {
    super(message);
  }
}

const TOKEN_KEY = "forge-token";

/** The token from the URL `forge ui` printed (kept for this tab, so a reload works, then dropped from the address bar). */
export function token(): string | null {
  const params = new URLSearchParams(location.search);
  const fromUrl = params.get("token");
  if (fromUrl) {
    sessionStorage.setItem(TOKEN_KEY, fromUrl);
    params.delete("token");
    history.replaceState(null, "", location.pathname + (params.size ? `?${params}` : "") + location.hash);
  }
  return sessionStorage.getItem(TOKEN_KEY);
}

async function call<T>(method: "GET" | "POST", path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = {};
  const t = token();
  if (t) headers["Authorization"] = `Bearer ${t}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const res = await fetch(path, { method, headers, ...(body !== undefined && { body: JSON.stringify(body) }) });
  const data = (await res.json().catch(() => ({ error: res.statusText, code: "HTTP" }))) as { error?: string; hint?: string; code?: string };
  if (!res.ok) throw new ApiError(`${data.error ?? res.statusText}${data.hint ? ` (${data.hint})` : ""}`, res.status, data.code ?? "HTTP");
  return data as T;
}

const enc = encodeURIComponent;

export const api = {
  sessions: () => call<{ sessions: SessionSummary[] }>("GET", "/api/sessions"),
  session: (name: string) => call<SessionDetail>("GET", `/api/sessions/${enc(name)}`),
  checkpoint: (name: string, ref: string) => call<CheckpointDetail>("GET", `/api/sessions/${enc(name)}/checkpoints/${enc(ref)}`),
  compare: (name: string, from: string, to: string) => call<CompareResult>("GET", `/api/sessions/${enc(name)}/compare?from=${enc(from)}&to=${enc(to)}`),
  restorePlan: (name: string, ref: string, linear: boolean) =>
    call<RestorePlan>("GET", `/api/sessions/${enc(name)}/restore-plan?ref=${enc(ref)}&linear=${linear ? 1 : 0}`),
  restore: (name: string, ref: string, linear: boolean) =>
    call<{ checkpoint: CheckpointJson; discarded: CheckpointJson[] }>("POST", `/api/sessions/${enc(name)}/restore`, { ref, linear }),
  append: (name: string, message: Record<string, unknown>) =>
    call<{ session: string; appended: unknown[]; count: number }>("POST", `/api/sessions/${enc(name)}/messages`, { message }),
  save: (name: string, checkpointName?: string, description?: string) =>
    call<{ checkpoint: CheckpointJson }>("POST", `/api/sessions/${enc(name)}/save`, {
      ...(checkpointName && { name: checkpointName }),
      ...(description && { description }),
    }),
  blame: (path: string, at?: string) => call<BlameResult>("GET", `/api/blame?path=${enc(path)}${at ? `&at=${enc(at)}` : ""}`),
  search: (query: string, order: string) => call<SearchResult>("GET", `/api/search?q=${enc(query)}&order=${enc(order)}`),
  importAgents: (options: { since?: string; all?: boolean } = {}) => call<AgentImportResult>("POST", "/api/agent/import", options),
  /** Server-sent events: calls `onChange` when any session changes. */
  events(onChange: () => void): () => void {
    const t = token();
    const source = new EventSource(`/api/events${t ? `?token=${enc(t)}` : ""}`);
    source.addEventListener("change", onChange);
    return () => source.close();
  },
};
