// The layer rules of docs/ARCHITECTURE.md, checked by `npm run lint` (dependency-cruiser).
// Data flows one way: interfaces (cli, mcp, ui) → operations → integrations → domains →
// timeline → objects → backends → core. A module may import its own layer and the layers
// below it; an import going up, a runtime cycle, or an interface importing a domain's code
// fails, naming the rule, the importing module and the imported one.
const LAYERS = ["core", "backends", "objects", "timeline", "domains", "integrations", "operations", "cli|mcp|ui"];

/** `src/<one of the layers above index i>/…` */
const above = (i) => `^src/(${LAYERS.slice(i + 1).join("|")})/`;

module.exports = {
  forbidden: [
    ...LAYERS.slice(0, -1).map((layer, i) => ({
      name: `no-up-from-${layer.replace("|", "-")}`,
      comment: `src/${layer} is below ${LAYERS.slice(i + 1).join(", ")}: it may not import them (docs/ARCHITECTURE.md, Layers)`,
      severity: "error",
      from: { path: `^src/(${layer})/` },
      to: { path: above(i) },
    })),
    {
      name: "interfaces-call-operations",
      comment: "the CLI, the MCP server and the web page call operations (src/operations), never a domain's or an integration's code; type imports are fine",
      severity: "error",
      from: { path: "^src/(cli|mcp|ui)/" },
      to: { path: "^src/(domains|integrations|backends)/", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "store-internals-stay-in-timeline",
      comment: "the backend under a Store is the timeline's (and tests'): everything else goes through the Store and Session, which own the write protocol",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/timeline/" },
      to: { path: "^src/timeline/store-internals[.]ts$" },
    },
    {
      name: "no-runtime-cycles",
      comment: "modules that import each other at run time (type-only imports aside) cannot be loaded or understood one at a time",
      severity: "error",
      from: { path: "^src/" },
      to: { circular: true, viaOnly: { dependencyTypesNot: ["type-only"] } },
    },
    {
      name: "no-unresolvable",
      comment: "an import that resolves to nothing",
      severity: "error",
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^src/ui/page/" },
    tsConfig: { fileName: "tsconfig.json" },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default", "types"], extensions: [".ts", ".js", ".json"] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
