// The conversation export document: a versioned JSON file with the session's messages,
// its checkpoints (name, description, tags, time, parent, branch, messages), branches and
// HEAD. `document-schema.ts` checks one on import.
import type { Message } from "./model.js";

export const DOCUMENT_FORMAT = "forge-conversation";
export const DOCUMENT_VERSION = 1;

export interface ExportedCheckpoint {
  /** The checkpoint's id in the exporting store (import gives new ones). */
  id: string;
  seq: number;
  parent: string | null;
  branch: string;
  name: string;
  description: string;
  tags: string[];
  trigger: string;
  /** ISO 8601. */
  createdAt: string;
  messageCount: number;
  messages: Message[];
}

export interface ConversationDocument {
  format: typeof DOCUMENT_FORMAT;
  version: typeof DOCUMENT_VERSION;
  session: string;
  exportedAt: string;
  /** What the conversation holds now (its working state), saved or not. */
  messages: Message[];
  /** HEAD: on a branch, or detached at a checkpoint. */
  head: { branch: string | null; checkpoint: string | null };
  branches: { name: string; checkpoint: string }[];
  /** Oldest first. */
  checkpoints: ExportedCheckpoint[];
}
