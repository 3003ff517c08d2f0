// A throwaway PostgreSQL cluster for the tests: initdb into a temp folder, pg_ctl on a Unix
// socket (no TCP port to collide with), stopped and removed afterwards. Uses the machine's
// PostgreSQL binaries (/usr/lib/postgresql/*/bin; installed with apt-get when absent and we are root). As
// root, initdb and pg_ctl run as the postgres user, which owns the folders. A developer can
// point the suite at their own server with FORGE_TEST_PG_URL instead.
//
// There is no skipping: if the server cannot start, `startPostgres` throws and every
// postgres test fails with that reason.
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface PostgresServer {
  readonly url: string;
  stop(): void;
}

const asRoot = typeof process.getuid === "function" && process.getuid() === 0;

function findBinDir(): string | undefined {
  const base = "/usr/lib/postgresql";
  const versions = existsSync(base) ? readdirSync(base).filter((v) => existsSync(join(base, v, "bin", "initdb"))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  return newest ? join(base, newest, "bin") : undefined;
}

/** Installs Debian's postgresql package (as root, with apt-get) when no server binaries are there. */
function installPostgres(): void {
  if (!asRoot || spawnSync("which", ["apt-get"]).status !== 0) return;
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const install = () => spawnSync("apt-get", ["install", "-y", "-q", "--no-install-recommends", "postgresql"], { stdio: ["ignore", "ignore", "inherit"], env });
  if (install().status !== 0) {
    spawnSync("apt-get", ["update", "-q"], { stdio: ["ignore", "ignore", "inherit"], env });
    install();
  }
}

let cachedBinDir: string | undefined;
function binDir(): string {
  if (cachedBinDir) return cachedBinDir;
  let dir = findBinDir();
  if (!dir) {
    installPostgres();
    dir = findBinDir();
  }
  if (!dir) {
    throw new Error(
      "no PostgreSQL server binaries under /usr/lib/postgresql/*/bin and apt-get could not install them (install the postgresql package, or set FORGE_TEST_PG_URL)",
    );
  }
  return (cachedBinDir = dir);
}

/** Runs a PostgreSQL tool, as the postgres user when we are root (initdb refuses root). */
function pgTool(tool: string, args: string[]): void {
  const file = join(binDir(), tool);
  const r = asRoot ? spawnSync("runuser", ["-u", "postgres", "--", file, ...args], { encoding: "utf8" }) : spawnSync(file, args, { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${tool} failed (exit ${r.status}): ${(r.stderr || r.stdout || String(r.error)).trim()}`);
}

export function startPostgres(): PostgresServer {
  const fromEnv = process.env["FORGE_TEST_PG_URL"];
  if (fromEnv) return { url: fromEnv, stop: () => undefined };
  const dir = mkdtempSync(join(tmpdir(), "forge-pg-"));
  const data = join(dir, "data");
  const socket = join(dir, "socket");
  execFileSync("mkdir", ["-p", socket]);
  chmodSync(dir, 0o755);
  if (asRoot) execFileSync("chown", ["-R", "postgres:postgres", dir]);
  const port = 50000 + Math.floor(Math.random() * 10000);
  pgTool("initdb", ["-D", data, "-A", "trust", "-U", "forge", "--no-sync", "-E", "UTF8"]);
  pgTool("pg_ctl", [
    "-D",
    data,
    "-l",
    join(dir, "log"),
    "-w",
    "-t",
    "60",
    "-o",
    `-k ${socket} -c listen_addresses='' -p ${port} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`,
    "start",
  ]);
  const url = `postgres://forge@/postgres?host=${encodeURIComponent(socket)}&port=${port}`;
  return {
    url,
    stop: () => {
      try {
        pgTool("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
