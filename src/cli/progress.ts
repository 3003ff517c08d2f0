// A progress bar on stderr for work that takes longer than a second, on a terminal only.
import { createRequire } from "node:module";
import type cliProgressType from "cli-progress";
import type { ProgressEvent, ProgressListener } from "../core/progress.js";
import { isTerminal } from "./output.js";

const DELAY_MS = 1000;

/** A listener that draws a bar once `DELAY_MS` have passed; call `stop()` when the work ends. */
export function progressBar(): { onProgress: ProgressListener | undefined; stop: () => void } {
  if (!isTerminal(2)) return { onProgress: undefined, stop: () => undefined };
  const started = Date.now();
  let bar: cliProgressType.SingleBar | undefined;
  let phase = "";
  const onProgress = (e: ProgressEvent) => {
    if (!bar) {
      if (Date.now() - started < DELAY_MS) return;
      // Loaded only once a bar is due: most commands end within the second.
      const cliProgress = createRequire(import.meta.url)("cli-progress") as typeof cliProgressType;
      bar = new cliProgress.SingleBar(
        { format: "{phase} [{bar}] {value}/{total}", stream: process.stderr, clearOnComplete: true, hideCursor: true },
        cliProgress.Presets.shades_classic,
      );
      bar.start(e.total, e.done, { phase: e.phase });
      phase = e.phase;
    }
    if (e.phase !== phase) phase = e.phase;
    bar.setTotal(e.total);
    bar.update(e.done, { phase });
  };
  return { onProgress, stop: () => bar?.stop() };
}
