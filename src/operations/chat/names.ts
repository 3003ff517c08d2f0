// The names the chat commands offer as choices (roles, message formats), from a module small
// enough for the CLI to load at start-up: the operations themselves are loaded when one runs.
export { INPUT_FORMATS, OUTPUT_FORMATS, ROLES, type InputFormat, type OutputFormat, type Role } from "../../domains/conversation/names.js";
