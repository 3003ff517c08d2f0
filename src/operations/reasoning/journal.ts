// The session's task and its notes.
import type { Note } from "../../domains/reasoning/model.js";
import { defineOperation } from "../operation.js";
import { sessionField } from "../shared.js";
import { change, type Saved } from "./shared.js";

export interface TaskResult {
  /** What the session is trying to do (trimmed as stored), or null when none was stated. */
  readonly task: string | null;
}

export const taskSetOperation = defineOperation({
  name: "task_set",
  title: "State the task",
  description: "Record what the session is trying to do; the brief opens with it.",
  effect: "write",
  input: (z) => ({ task: z.string().min(1).describe("what the session is trying to do"), session: sessionField(z) }),
  run: async (ctx, input): Promise<TaskResult & Saved> => {
    const r = await change(ctx, input.session, (rs) => rs.setTask(input.task));
    return { task: r.rs.task, autoCheckpoint: r.autoCheckpoint };
  },
});

export const taskShowOperation = defineOperation({
  name: "task_show",
  title: "Show the task",
  description: "What the session is trying to do, as last stated.",
  effect: "read",
  input: (z) => ({ session: sessionField(z) }),
  run: async (ctx, input): Promise<TaskResult> => ({ task: (await ctx.reasoning(input.session)).task }),
});

export const noteAddOperation = defineOperation({
  name: "note_add",
  title: "Add a note",
  description: "A free-form note with optional tags.",
  effect: "write",
  input: (z) => ({ text: z.string().min(1).describe("the note"), tags: z.array(z.string().min(1)).default([]), session: sessionField(z) }),
  run: async (ctx, input): Promise<Note & Saved> => {
    const r = await change(ctx, input.session, (rs) => rs.notes.add(input.text, input.tags));
    return { ...r.result, autoCheckpoint: r.autoCheckpoint };
  },
});
