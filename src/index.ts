// forge-reasoning: checkpoints and time travel for AI agents.
//
// A fresh process that imports this, opens a store and reads a state should load little
// else: what only some calls need (compare, squash, restore, gc, fsck, bundles, search, the
// encoder until the first write) is loaded by the call, here or in the class it belongs to.
// Functions loaded that way keep their exported names and types.
import type * as CompareModule from "./operations/checkpoint/compare.js";
import type * as MilestonesModule from "./operations/milestone/milestones.js";
export { openStore, Store, type OpenOptions, type SessionOptions } from "./timeline/store.js";
export { Session } from "./timeline/session.js";
export { MAIN_BRANCH } from "./timeline/types.js";
export type * from "./timeline/types.js";
export type { RetentionPolicy, KeepReason } from "./timeline/retention.js";
export { DEFAULT_RETENTION } from "./timeline/retention.js";
export type { Milestone, MilestoneOptions, MilestoneSpan } from "./timeline/milestones.js";
export type { SquashConflict, SquashConflictKind, SquashOptions, SquashReport } from "./timeline/squash.js";
export type { GcOptions, GcReport } from "./timeline/gc.js";
export type { FsckOptions, FsckReport } from "./timeline/fsck.js";
export type { ProgressEvent, ProgressListener } from "./core/progress.js";
export type { ExportResult, ImportOptions, ImportReport } from "./timeline/bundle.js";
export { Redactor, RulesNotLoaded, type RedactionAllowList, type RedactionOptions } from "./core/redact/redactor.js";
export type { SecretFinding, SecretScanReport } from "./timeline/secret-scan.js";
export type { RedactOptions, RedactReport } from "./timeline/secret-redact.js";
export { SEARCH_KINDS } from "./timeline/search-kinds.js";
export type { HitCheckpoint, SearchHit, SearchOptions, SearchOrder, SearchResult } from "./timeline/search.js";
export type { IndexStats } from "./backends/search/search-index.js";
export * from "./core/errors.js";
export { InvalidTimeError, parseDuration, parseTime, type TimeInput } from "./core/time.js";
export { ManualClock, systemClock, type Clock } from "./core/clock.js";
export type { Backend } from "./backends/backend.js";
export { formatPath, type ValueChange, type ChangeKind } from "./objects/tree-diff.js";
export type { PathKey } from "./objects/node.js";
export { DEFAULT_TREE_PARAMS, type TreeParams } from "./objects/tree-params.js";

// Reasoning sessions: the debugging state an agent builds, checkpointed.
export { ReasoningSession, SIGNIFICANT_TIME_MS, type ReasoningOptions, type SaveResult } from "./domains/reasoning/reasoning-session.js";
export type {
  Belief,
  CodeState,
  CommandRun,
  Evidence,
  EvidenceKind,
  Gap,
  GapPriority,
  Hypothesis,
  HypothesisStatus,
  Note,
  ReasoningState,
  Verification,
} from "./domains/reasoning/model.js";
export type { Contradiction } from "./domains/reasoning/beliefs.js";
export type { ReasoningChange, ReasoningComparison } from "./domains/reasoning/compare.js";
export type { RecoveryPoint } from "./domains/reasoning/recovery.js";
export { REASONING_RETENTION } from "./domains/reasoning/retention.js";
export { TRIGGERS, type Trigger, type TriggerEvent } from "./domains/reasoning/part.js";
export { updatedConfidence } from "./domains/reasoning/hypotheses.js";

// Milestones and checkpoint diffs as people read them: typed reasoning changes and file changes.
export type { CompareOptions, CompareResult } from "./operations/checkpoint/compare.js";
/** The change from checkpoint `from` to `to` (refs of `session`). */
export const compareCheckpoints: typeof CompareModule.compareCheckpoints = async (...args) =>
  (await import("./operations/checkpoint/compare.js")).compareCheckpoints(...args);
/** A milestone, the checkpoints it spans and its combined change: the compare of its two ends. */
export const describeMilestone: typeof MilestonesModule.describeMilestone = async (...args) =>
  (await import("./operations/milestone/milestones.js")).describeMilestone(...args);
export type { StateComparison } from "./domains/kinds.js";

// Workflow runs (flowgraph ADR-015): per-run, per-node saves with history, and crash-safe resume.
export { RunStore, type RunCheckpointInfo, type RunInfo } from "./integrations/runs/run-store.js";
export { resume, type Step, type ResumeOptions, type ResumeResult, type ResumeEvent } from "./integrations/runs/resume.js";

// Conversations: messages of every role with tool calls intact, saved, restored and exchanged with OpenAI and LangChain.
export {
  ConversationSession,
  type AppendOptions,
  type AppendResult,
  type ConversationCheckpoint,
  type ConversationImportOptions,
  type ConversationImportResult,
  type ConversationRestoreOptions,
  type ConversationRestoreResult,
  type ConversationSaveOptions,
  type SavedConversation,
} from "./domains/conversation/conversation-session.js";
export {
  InvalidMessageError,
  checkMessage,
  checkMessages,
  ROLES,
  type Content,
  type ContentPart,
  type Message,
  type Role,
  type ToolCall,
} from "./domains/conversation/model.js";
export {
  detectFormat,
  readMessages,
  writeMessages,
  INPUT_FORMATS,
  OUTPUT_FORMATS,
  type InputFormat,
  type OutputFormat,
} from "./domains/conversation/interchange.js";
export { fromOpenAIMessages, toOpenAIMessages, type OpenAIMessage, type OpenAIToolCall } from "./domains/conversation/openai.js";
export {
  fromLangChainMessages,
  toLangChainMessages,
  toLangChainStoredMessages,
  type LangChainSerializedMessage,
  type LangChainStoredMessage,
} from "./domains/conversation/langchain.js";
export type { ConversationDocument, ExportedCheckpoint } from "./domains/conversation/document.js";

// Watching (`forge watch`): scheduled checkpoints of a session, and snapshots of its workspace after each burst of edits.
export {
  Watcher,
  SCHEDULED_TRIGGER,
  DEFAULT_EVERY_MS,
  DEFAULT_QUIET_MS,
  DEFAULT_RESCAN_MS,
  type WatchOptions,
  type WatchEvent,
  type WatchSummary,
  type SnapshotCause,
} from "./domains/watch/watcher.js";
export { Workspace, STRATEGIES, type Strategy, type WorkspaceOptions, type SnapshotResult } from "./domains/workspace/workspace.js";
