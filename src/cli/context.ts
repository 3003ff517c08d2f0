// What every command gets: the operation context its global options name (the store and
// session, opened on first use and closed when the command ends), whether to print JSON,
// and `call`, which runs an operation with the typed input the command built.
import { createRequire } from "node:module";
import { envFlag } from "../core/config.js";
import { ForgeError } from "../core/errors.js";
import { readInputFile } from "../core/files.js";
import { OperationContext } from "../operations/context.js";
import type { InputOf, Operation, Shape } from "../operations/operation.js";
import { progressBar } from "./progress.js";

export interface GlobalOptions {
  readonly store?: string;
  readonly session?: string;
  readonly json?: boolean;
}

export class CliContext extends OperationContext {
  readonly global: GlobalOptions;
  readonly #bar: ReturnType<typeof progressBar>;

  constructor(global: GlobalOptions) {
    const bar = progressBar();
    super({
      ...(global.store !== undefined && { store: global.store }),
      ...(global.session !== undefined && { session: global.session }),
      ...(bar.onProgress && { onProgress: bar.onProgress }),
    });
    this.#bar = bar;
    this.global = global;
  }

  get json(): boolean {
    return this.global.json === true;
  }

  /**
   * Runs an operation with the input the command built from its arguments. Under
   * FORGE_CHECK_INPUTS (the tests set it) the input is first checked against the
   * operation's schema, so the CLI cannot drift from what the MCP server and the web page
   * accept; otherwise zod is not loaded (it costs every command ~60 ms).
   */
  async call<S extends Shape, R>(op: Operation<S, R>, input: InputOf<S>): Promise<R> {
    if (envFlag("FORGE_CHECK_INPUTS")) {
      // require, not import(): the bundled CLI runs as a script (bin/code-cache.js), where a dynamic import has no loader.
      const { z } = createRequire(import.meta.url)("zod") as typeof import("zod");
      const checked = z.object(op.input(z)).strict().safeParse(input);
      if (!checked.success) throw new Error(`the CLI built an input that ${op.name}'s schema refuses: ${z.prettifyError(checked.error)}`);
    }
    try {
      return await op.run(this, input);
    } finally {
      this.#bar.stop();
    }
  }
}

/** Usage errors exit 2: the command line itself is wrong. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** Reads a JSON document from a file, or from standard input for "-". */
export function readJsonInput(source: string): unknown {
  const label = source === "-" ? "standard input" : source;
  const text = readInputFile(source, "pass a JSON file with --state FILE, or - to read standard input");
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new ForgeError("INVALID_STATE", `${label} is not JSON: ${(e as Error).message}`, {
      hint: "a state must be one JSON document; nothing was saved",
      cause: e,
    });
  }
}
