// Whether this process is the CLI's own: bin/forge.js runs one command in it and exits. Code
// that would change process-wide state for a moment (the working folder: fast-stat.ts) does
// so only then; a library user's process is left as it is, since other code there may be
// resolving relative paths meanwhile.
let owned = false;

/** Called by the CLI's `main` before it runs a command. */
export function ownProcess(): void {
  owned = true;
}

export function processOwned(): boolean {
  return owned;
}
