// forge-reasoning/langgraph: a LangGraph.js checkpoint saver over a Forge store. A separate
// entry point because @langchain/* are optional peer dependencies of forge-reasoning.
export { ForgeSaver, type ForgeSaverOptions } from "./forge-saver.js";
export { threadSessionName } from "./thread-log.js";
