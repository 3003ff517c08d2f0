// Glue between commander and the library: each action gets a CliContext built from the
// global options, and the store is closed however the action ends.
import { InvalidArgumentError as CommanderArgumentError, type Command } from "commander";
import { CliContext, type GlobalOptions } from "./context.js";

type ActionArgs = unknown[];

/** Wraps an action: the last two commander arguments are the options and the command. */
export function run<A extends ActionArgs>(fn: (ctx: CliContext, ...args: A) => Promise<void>) {
  return async (...args: unknown[]) => {
    const cmd = args[args.length - 1] as Command;
    const ctx = new CliContext(cmd.optsWithGlobals<GlobalOptions>());
    try {
      await fn(ctx, ...(args.slice(0, -1) as A));
    } finally {
      await ctx.close();
    }
  };
}

/** A commander parser for whole numbers ≥ 0 that names the option on bad input. */
export function wholeNumber(value: string): number {
  if (!/^\d+$/.test(value.trim())) throw new CommanderArgumentError(`"${value}" is not a whole number`);
  return Number(value);
}

/** "a,b, c" → ["a", "b", "c"]; repeated options accumulate. */
export function commaList(value: string, previous: string[] = []): string[] {
  return [
    ...previous,
    ...value
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s !== ""),
  ];
}
