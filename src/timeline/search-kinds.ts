// The kinds a search hit can have besides a session's own kind. A module of its own so that the
// library's entry exports the list without loading search (docs/ARCHITECTURE.md, Search).
export const SEARCH_KINDS = ["reasoning", "conversation", "files", "runs", "messages", "langgraph", "generic", "workspace"] as const;
