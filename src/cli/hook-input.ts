// The host's payload when bin/forge.js read it already, to offer the hook to a long-lived Forge
// process first (domains/workspace/hook-client.ts) which did not take it: the hook reads it
// from here instead of stdin, which is then at its end.
let adopted: string | undefined;

/** Hands the CLI the stdin bin/forge.js read. */
export function adoptHookInput(text: string | undefined): void {
  adopted = text;
}

/** The stdin bin/forge.js read, once; undefined when it read none. */
export function takeHookInput(): string | undefined {
  const text = adopted;
  adopted = undefined;
  return text;
}
