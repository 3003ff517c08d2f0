// Files whose whole purpose is to hold secrets: environment files, private keys, credential
// stores. A snapshot keeps file bytes exact (a restore gives back what was there), so it
// cannot redact them; it leaves them out instead, unless git tracks them (then they are the
// project's, and a restore must bring them back) or the user opts them in
// (`workspace.secretFiles` in .forge/config.json). Status and snapshots say which were left out.
import { closeSync, openSync, readSync } from "node:fs";
import { join } from "node:path";
import { createRequire } from "node:module";
import type { Ignore } from "ignore";

/** `.env`, `.env.local`, `.env.production`… but not the examples committed beside them. */
const ENV = /^\.env(?:\.(?!(?:example|sample|template|dist)$)[^/]+)?$/;
/** Always credentials, whatever they hold. */
const ALWAYS = new Set([
  "id_rsa",
  "id_dsa",
  "id_ecdsa",
  "id_ed25519",
  "id_ecdsa_sk",
  "id_ed25519_sk",
  ".netrc",
  "_netrc",
  ".git-credentials",
  ".pgpass",
  ".htpasswd",
]);
/** Key stores (PKCS#12, Java): binary containers of private keys. */
const KEYSTORE = /\.(?:p12|pfx|jks|keystore)$/i;
/** Credential stores by their path's end. */
const STORE_PATHS = [".aws/credentials", ".docker/config.json", ".config/gh/hosts.yml"];
/** Files that are secret only when they hold one: what in their first bytes says so. */
const SNIFF: readonly [RegExp, RegExp][] = [
  [/\.(?:pem|key)$/i, /PRIVATE KEY-----/],
  [/(?:^|\/)\.npmrc$/, /_auth(?:Token)?\s*=|_password\s*=/],
  [/(?:^|\/)\.pypirc$/, /^\s*password\s*[:=]/m],
];
const SNIFF_BYTES = 64 * 1024;

/** Extensions (lower case) that can make a file secret: key stores and keys. */
const SECRET_EXTENSIONS = new Set(["p12", "pfx", "jks", "keystore", "pem", "key"]);
/** The last names of STORE_PATHS. */
const STORE_NAMES = new Set(STORE_PATHS.map((p) => p.slice(p.lastIndexOf("/") + 1)));

/**
 * Whether a file named `name` could be secret at all: every rule above needs a name that
 * starts with a dot, is one of ALWAYS or STORE_NAMES, or has one of SECRET_EXTENSIONS. The
 * walk asks about every file, and almost none passes this.
 */
function mayBeSecret(name: string): boolean {
  if (name.charCodeAt(0) === 46 || ALWAYS.has(name) || STORE_NAMES.has(name)) return true;
  const dot = name.lastIndexOf(".");
  return dot > 0 && name.length - dot <= 9 && SECRET_EXTENSIONS.has(name.slice(dot + 1).toLowerCase());
}

/** Whether `path` (relative, "/"-separated, a file under `root`) is a secret file. */
export function isSecretFile(root: string, path: string): boolean {
  const name = path.slice(path.lastIndexOf("/") + 1);
  if (!mayBeSecret(name)) return false;
  if (ENV.test(name) || ALWAYS.has(name) || KEYSTORE.test(name)) return true;
  if (STORE_PATHS.some((p) => path === p || path.endsWith(`/${p}`))) return true;
  for (const [file, holds] of SNIFF) if (file.test(path)) return holds.test(head(join(root, path)));
  return false;
}

/** Whether what `path` holds decides if it is a secret file (a key, .npmrc, .pypirc): a change of content can change the answer. */
export function secretByContent(path: string): boolean {
  return SNIFF.some(([file]) => file.test(path));
}

/** The first bytes of a file as text ("" when it cannot be read: the walk reports that itself). */
function head(abs: string): string {
  let fd: number;
  try {
    fd = openSync(abs, "r");
  } catch {
    return "";
  }
  try {
    const buf = Buffer.allocUnsafe(SNIFF_BYTES);
    const n = readSync(fd, buf, 0, SNIFF_BYTES, 0);
    return buf.toString("latin1", 0, n);
  } finally {
    closeSync(fd);
  }
}

/** Which secret files snapshots keep anyway: `workspace.secretFiles` (true: all; patterns: those). */
export type SecretFilesOption = boolean | readonly string[];

/** Whether the option keeps the secret file `path`. */
export function keptSecretFile(option: SecretFilesOption | undefined): (path: string) => boolean {
  if (option === true) return () => true;
  if (option === undefined || option === false || option.length === 0) return () => false;
  const matcher = (createRequire(import.meta.url)("ignore") as () => Ignore)().add([...option]);
  return (path) => matcher.ignores(path);
}
