// An operation is one use case, written once: a typed input (described by a zod schema),
// one result shape (plain JSON data), and a `run` that does the work through the domains.
// The CLI, the MCP server and the web page are adapters over operations: they parse their
// own input, call `run`, and render the one result — `--json`, MCP structured content and
// the web API all print the same data.
//
// Operation modules do not import zod: the CLI runs on every hook of an agent host, and
// loading zod costs ~60 ms a process. The schema is built from the zod namespace an
// adapter passes in (`input(z)`); the MCP server and the web page, whose callers are not
// trusted, parse every input with it; the CLI builds the typed input from commander's
// parse (and checks it against the schema too when FORGE_CHECK_INPUTS is set, as the tests
// do, so the two cannot drift).
import type * as Zod from "zod";
import type { OperationContext } from "./context.js";

/** The zod namespace, handed to `input` by the adapters that validate. */
export type Z = typeof Zod.z;
export type Shape = Zod.ZodRawShape;
/** The typed input of an operation whose schema has `S`'s fields (defaults applied). */
export type InputOf<S extends Shape> = Zod.output<Zod.ZodObject<S>>;

/** What an operation does to the store or the files: what MCP's tool annotations say. */
export type Effect = "read" | "write" | "destructive";

export interface Operation<S extends Shape, R> {
  /** Stable name, also the MCP tool's: `checkpoint_create`. */
  readonly name: string;
  /** A short title for people (MCP shows it). */
  readonly title: string;
  /** What it does and what it changes, for agents reading tool lists and people reading help. */
  readonly description: string;
  readonly effect: Effect;
  /** It reaches beyond the store and the workspace: runs a program of the caller's (MCP's openWorldHint). */
  readonly openWorld?: boolean;
  /** The input's fields, built with the zod namespace given. */
  input(z: Z): S;
  run(ctx: OperationContext, input: InputOf<S>): Promise<R>;
  /** The text a text-only MCP client reads (default: the result as JSON). */
  text?(result: R): string;
}

/** Declares an operation (an identity function that fixes the types). */
export function defineOperation<S extends Shape, R>(op: Operation<S, R>): Operation<S, R> {
  return op;
}

/** Any operation, as the adapters that register every one see them (methods are bivariant, so every operation is one). */
export type AnyOperation = Operation<Shape, unknown>;
