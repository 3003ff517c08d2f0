// The operations an agent sees as MCP tools, in the order tools are listed.
import { agentImportOperation } from "../operations/agent/import.js";
import { blameOperation } from "../operations/blame/blame.js";
import { whyOperation } from "../operations/blame/why.js";
import { compareOperation } from "../operations/checkpoint/compare.js";
import { createOperation } from "../operations/checkpoint/create.js";
import { atOperation, listOperation, showOperation, timelineOperation } from "../operations/checkpoint/read.js";
import { restoreOperation } from "../operations/checkpoint/restore.js";
import { filesDiffOperation } from "../operations/files/diff.js";
import { filesLogOperation } from "../operations/files/log.js";
import { filesRestoreOperation } from "../operations/files/restore.js";
import { filesSnapshotOperation } from "../operations/files/snapshot.js";
import { filesStatusOperation } from "../operations/files/status.js";
import type { AnyOperation } from "../operations/operation.js";
import { searchOperation } from "../operations/search/search.js";
import { beliefAddOperation, beliefListOperation, beliefRetractOperation, contradictionsOperation } from "../operations/reasoning/beliefs.js";
import { verifyOperation } from "../operations/reasoning/commands.js";
import { experimentBranchOperation, experimentSwitchOperation } from "../operations/reasoning/experiments.js";
import { gapAddOperation, gapFillOperation, gapListOperation } from "../operations/reasoning/gaps.js";
import { evidenceAddOperation, hypothesisAddOperation, hypothesisListOperation, hypothesisUpdateOperation } from "../operations/reasoning/hypotheses.js";
import { noteAddOperation, taskSetOperation } from "../operations/reasoning/journal.js";
import { briefOperation, recoverOperation } from "../operations/reasoning/resume.js";
import { sessionListOperation } from "../operations/store/store.js";

export const MCP_OPERATIONS: readonly AnyOperation[] = [
  createOperation,
  listOperation,
  searchOperation,
  showOperation,
  compareOperation,
  restoreOperation,
  atOperation,
  timelineOperation,
  sessionListOperation,
  // The reasoning board of a debugging session.
  taskSetOperation,
  hypothesisAddOperation,
  hypothesisUpdateOperation,
  hypothesisListOperation,
  evidenceAddOperation,
  beliefAddOperation,
  beliefRetractOperation,
  beliefListOperation,
  contradictionsOperation,
  gapAddOperation,
  gapFillOperation,
  gapListOperation,
  noteAddOperation,
  verifyOperation,
  briefOperation,
  recoverOperation,
  experimentBranchOperation,
  experimentSwitchOperation,
  // The workspace's files (after the reasoning tools).
  filesSnapshotOperation,
  filesStatusOperation,
  filesDiffOperation,
  filesRestoreOperation,
  filesLogOperation,
  // Agent sessions recorded before Forge, out of the hosts' own transcripts.
  agentImportOperation,
  // Which prompt of which captured agent session wrote a line.
  blameOperation,
  whyOperation,
];
