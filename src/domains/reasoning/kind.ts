// The reasoning kind: a debugging session's board. Also how generic sessions are read, since
// a generic session may hold reasoning states (`forge checkpoint create` of a board).
import type { SessionKind } from "../kinds.js";
import { compareStates } from "./compare.js";
import { isReasoningState, toReasoningState } from "./model.js";

export const reasoningKind: SessionKind = {
  view: (state, sessionName) => (isReasoningState(state) ? { kind: "reasoning", state: toReasoningState(state, sessionName) } : null),
  compare: (a, b, sessionName) => {
    if (!isReasoningState(a.state) || !isReasoningState(b.state)) return null;
    const r = compareStates({ ...a, state: toReasoningState(a.state, sessionName) }, { ...b, state: toReasoningState(b.state, sessionName) });
    return { kind: "reasoning", summary: r.summary, changes: r.changes };
  },
  restoresOnPage: true,
};
