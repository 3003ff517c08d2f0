// Which files a snapshot leaves out as secrets (src/domains/workspace/secret-files.ts). The
// walk asks about every file, so the check starts with a cheap test of the name; these
// cases hold every rule to its answer through that test.
import { describe, expect, it } from "vitest";
import { isSecretFile } from "../../src/domains/workspace/secret-files.js";
import { put, tempDir } from "./support.js";

describe("secret files", () => {
  it("are named by each rule, at the root and in folders, whatever the case of a key store's extension", () => {
    const root = tempDir("secret-files").path;
    put(root, "keys/server.pem", "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n");
    put(root, "certs/ca.pem", "-----BEGIN CERTIFICATE-----\nMIIB\n");
    put(root, "tls.KEY", "-----BEGIN PRIVATE KEY-----\n");
    put(root, ".npmrc", "//registry.npmjs.org/:_authToken=abc\n");
    put(root, "web/.npmrc", "registry=https://registry.npmjs.org/\n");
    put(root, ".pypirc", "[pypi]\npassword = hunter2\n");
    const secret = [
      ".env",
      ".env.local",
      "app/.env.production",
      "id_rsa",
      "home/.ssh/id_ed25519",
      "_netrc",
      ".netrc",
      ".git-credentials",
      ".pgpass",
      ".htpasswd",
      "release.p12",
      "Release.PFX",
      "android/app/upload.jks",
      "java/trust.keystore",
      ".p12",
      ".aws/credentials",
      "me/.docker/config.json",
      ".config/gh/hosts.yml",
      "keys/server.pem",
      "tls.KEY",
      ".npmrc",
      ".pypirc",
    ];
    const ordinary = [
      "src/index.ts",
      ".env.example",
      "app/.env.sample",
      ".env.template",
      ".gitignore",
      "README",
      "credentials.md",
      "docs/config.json",
      "hosts.yml.bak",
      "certs/ca.pem",
      "web/.npmrc",
      "key",
      "pem",
      "archive.tar.gz",
      "id_rsa.pub",
    ];
    expect(secret.filter((p) => !isSecretFile(root, p))).toEqual([]);
    expect(ordinary.filter((p) => isSecretFile(root, p))).toEqual([]);
  });
});
