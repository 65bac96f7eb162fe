/**
 * SIGHUP: re-read `API_KEYS_FILE` (together with `API_KEYS` from the environment the process
 * started with) and swap the accepted keys at once. A file that cannot be read, holds a bad
 * line or holds no key keeps the old set, and the reason is logged as a warning — a typo in the
 * keys file must not lock every client out. Keys never appear in the log, only counts.
 */
import { keyDigest, type KeyRing } from "../http/auth.ts";
import type { Logger } from "../log.ts";
import { readKeysFile } from "./api_keys.ts";
import { type Config, ConfigError } from "./config.ts";

/** Reloads the keys into `keys`; returns whether the set was replaced. */
export function reloadApiKeys(config: Config, keys: KeyRing, log: Logger): boolean {
  if (config.apiKeysFile === undefined) {
    log.info({ msg: "SIGHUP: no API_KEYS_FILE set, so the accepted keys stay as they are" });
    return false;
  }
  let fileDigests: Uint8Array[];
  try {
    fileDigests = readKeysFile(config.apiKeysFile);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    log.warn({
      msg: `SIGHUP: keeping the previous ${keys.size} API keys: ${error.message}`,
      setting: "API_KEYS_FILE",
    });
    return false;
  }
  const digests = [...(config.apiKeys ?? []).map(keyDigest), ...fileDigests];
  keys.replace(digests);
  log.info({ msg: `SIGHUP: API keys reloaded, ${digests.length} accepted`, keys: digests.length });
  return true;
}
