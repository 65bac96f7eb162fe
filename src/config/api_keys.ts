/**
 * The accepted keys: `API_KEYS`, `API_KEYS_FILE` (one key or `sha256:<hex>` per line, `#`
 * comments), or else a key generated on first start, kept in DATA_DIR (mode 0600).
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { keyDigest } from "../http/auth.ts";
import type { Config } from "./config.ts";
import { ConfigError, KEY_TEXT, readSettingFile } from "./settings.ts";
import { errorCodeOf } from "../observe/error_code.ts";

const DIGEST_LINE = /^sha256:([0-9a-fA-F]{64})$/;

/** Parses the text of a keys file into digests; throws `ConfigError` naming the line. */
export function parseKeysFile(text: string): Uint8Array[] {
  const digests: Uint8Array[] = [];
  for (const [index, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const digest = DIGEST_LINE.exec(line);
    if (digest !== null) {
      digests.push(Uint8Array.from(digest[1].match(/../g)!, (byte) => parseInt(byte, 16)));
      continue;
    }
    const why = line.startsWith("sha256:")
      ? "a sha256: line must hold 64 hex digits"
      : !KEY_TEXT.test(line) && "a key must be visible ASCII without spaces";
    if (why) throw new ConfigError("API_KEYS_FILE", `API_KEYS_FILE line ${index + 1}: ${why}`);
    digests.push(keyDigest(line));
  }
  return digests;
}

/** API_KEYS, then the keys file's; an unreadable or empty file is a `ConfigError`. */
export function configuredKeys({ apiKeys = [], apiKeysFile: path }: Config): Uint8Array[] {
  if (path === undefined) return apiKeys.map(keyDigest);
  const failure = `API_KEYS_FILE cannot be read: ${path}`;
  const digests = parseKeysFile(readSettingFile("API_KEYS_FILE", path, failure));
  if (digests.length === 0) {
    throw new ConfigError("API_KEYS_FILE", `API_KEYS_FILE holds no keys: ${path}`);
  }
  return [...apiKeys.map(keyDigest), ...digests];
}

/** The keys to accept (and the first-run key, when generated), or why that key cannot be kept. */
export type LoadedKeys =
  | { ok: true; digests: Uint8Array[]; generatedKey?: { key: string; file: string } }
  | { ok: false; reason: string };

/**
 * The accepted keys from the settings, or the first-run key, generated if needed; not ok when that
 * key cannot be read or written (a failure to start, exit 1, not a bad setting).
 */
export function loadApiKeys(config: Config): LoadedKeys {
  if (config.apiKeys !== undefined || config.apiKeysFile !== undefined) {
    return { ok: true, digests: configuredKeys(config) };
  }
  const file = join(config.dataDir, "api-key");
  let key: string;
  try {
    key = readOrCreateGeneratedKey(config.dataDir, file);
  } catch (error) {
    const reason = `cannot keep the generated API key in ${file}: ${errorCodeOf(error)}`;
    return { ok: false, reason };
  }
  return { ok: true, digests: [keyDigest(key)], generatedKey: { key, file } };
}

function readOrCreateGeneratedKey(dataDir: string, file: string): string {
  try {
    const existing = readFileSync(file, "utf8").trim();
    if (existing !== "") return existing;
  } catch (error) {
    if (errorCodeOf(error) !== "ENOENT") throw error;
  }
  mkdirSync(dataDir, { recursive: true });
  // 256 bits: the contract asks for 128.
  const key = `ask_${randomBytes(32).toString("base64url")}`;
  try {
    writeFileSync(file, `${key}\n`, { mode: 0o600, flag: "wx" });
  } catch (error) {
    // Another process wrote it first: use that one, so both agree.
    if (errorCodeOf(error) !== "EEXIST") throw error;
    return readFileSync(file, "utf8").trim();
  }
  return key;
}
