// forge-reasoning/langgraph: a LangGraph.js checkpoint saver over a Forge store. A separate
// entry point because @langchain/* are optional peer dependencies of forge-reasoning. The
// saver is imported dynamically so that, without them, importing this entry point fails
// with an error naming them and the install command (peers.ts), not at link time.
import type { ForgeSaver as Saver } from "./forge-saver.js";
import { loadWithPeers } from "./peers.js";

const saver = await loadWithPeers(() => import("./forge-saver.js"));

export const ForgeSaver = saver.ForgeSaver;
export type ForgeSaver = Saver;
export type { ForgeSaverOptions } from "./forge-saver.js";
export { threadSessionName } from "./thread-log.js";
