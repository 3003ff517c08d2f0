// The agent hosts by the names commands take, for the interfaces (a constant module: the CLI
// imports it at start-up to check `forge enable <host>` arguments).
export { HOST_ALIASES, HOST_IDS, hostIdOf } from "../../integrations/hosts/types.js";
