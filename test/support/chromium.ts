// Debian's Chromium for the browser tests, driven by playwright-core (which downloads
// nothing). When /usr/bin/chromium is missing and we are root, it is installed with
// apt-get; if it still is not there the test fails — it is never skipped.
import { existsSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { chromium, type Browser } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";

export function ensureChromium(): void {
  if (existsSync(CHROMIUM)) return;
  const root = typeof process.getuid === "function" && process.getuid() === 0;
  if (root && spawnSync("which", ["apt-get"]).status === 0) {
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    const install = () => spawnSync("apt-get", ["install", "-y", "-q", "--no-install-recommends", "chromium"], { stdio: ["ignore", "ignore", "inherit"], env });
    if (install().status !== 0) {
      spawnSync("apt-get", ["update", "-q"], { stdio: ["ignore", "ignore", "inherit"], env });
      install();
    }
  }
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing and apt-get could not install it (install Debian's chromium package)`);
}

export async function launchChromium(): Promise<Browser> {
  ensureChromium();
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] });
}
