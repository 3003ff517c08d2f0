// The operations an agent sees as MCP tools, in the order tools are listed.
import { compareOperation } from "../operations/checkpoint/compare.js";
import { createOperation } from "../operations/checkpoint/create.js";
import { atOperation, listOperation, searchOperation, showOperation, timelineOperation } from "../operations/checkpoint/read.js";
import { restoreOperation } from "../operations/checkpoint/restore.js";
import type { AnyOperation } from "../operations/operation.js";
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
];
