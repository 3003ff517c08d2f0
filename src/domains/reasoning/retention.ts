// The forge-reasoning design's retention for reasoning sessions: everything from the last
// hour, every manual checkpoint, every significant one (a hypothesis confirmed or rejected,
// a contradiction detected — tagged "significant" when made), and one per hour for all
// older time. Keep-last and keep-days are added by the caller when wanted.
import type { RetentionPolicy } from "../../timeline/retention.js";

export const REASONING_RETENTION: RetentionPolicy = Object.freeze({
  keepRecentMinutes: 60,
  keepManual: true,
  keepTags: Object.freeze(["significant", "milestone", "keep"]),
  keepHourly: Number.POSITIVE_INFINITY,
});
