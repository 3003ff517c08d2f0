// The words the reasoning operations accept, for interfaces that offer them before an
// operation loads (the CLI's option choices). Small: every reasoning command imports it.
export { GAP_PRIORITIES, HYPOTHESIS_STATUSES, type GapPriority } from "../../domains/reasoning/model.js";
