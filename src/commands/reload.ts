/** SIGHUP: the keys file and the TLS pair read again; where they fail, the old stay, logged. */
import { configuredKeys } from "../config/api_keys.ts";
import type { Config } from "../config/config.ts";
import { ConfigError } from "../config/settings.ts";
import { readTlsPair, type TlsPair } from "../config/tls_pair.ts";
import type { KeyRing } from "../http/auth.ts";
import type { Logger } from "../observe/log.ts";
import type { RunningServer } from "../runtime/contract.ts";

/**
 * Re-reads `API_KEYS_FILE` (with `API_KEYS` as at start) and swaps the keys; returns whether it
 * did. A bad file keeps the old set: a typo must not lock every client out. Keys are never logged.
 */
export function reloadApiKeys(config: Config, keys: KeyRing, log: Logger): boolean {
  if (config.apiKeysFile === undefined) {
    log.info({ msg: "SIGHUP: no API_KEYS_FILE set, so the accepted keys stay as they are" });
    return false;
  }
  let digests: Uint8Array[];
  try {
    digests = configuredKeys(config);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    log.warn({
      msg: `SIGHUP: keeping the previous ${keys.size} API keys: ${error.message}`,
      setting: "API_KEYS_FILE",
    });
    return false;
  }
  keys.replace(digests);
  log.info({ msg: `SIGHUP: API keys reloaded, ${digests.length} accepted`, keys: digests.length });
  return true;
}

/**
 * Re-reads the pair `current` came from; returns the pair now served (to new connections). A bad
 * pair keeps the old one: a half-copied renewal must not take HTTPS down. Where the runtime cannot
 * swap (Deno, Bun), the new pair is still checked, and the log says a restart is needed.
 */
export function reloadTls(
  current: TlsPair,
  server: Pick<RunningServer, "replaceTls">,
  { runtime, log }: { runtime: string; log: Logger },
): TlsPair {
  let next: TlsPair;
  try {
    next = readTlsPair(current.certFile, current.keyFile);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    log.warn({
      msg: `SIGHUP: keeping the previous TLS certificate: ${error.message}`,
      setting: error.setting,
      fingerprint: current.fingerprint,
    });
    return current;
  }
  if (server.replaceTls === undefined) {
    log.warn({
      msg:
        `SIGHUP: ${runtime} cannot swap the TLS certificate of a running server; restart the service to serve the one in TLS_CERT_FILE`,
      fingerprint: current.fingerprint,
      next: next.fingerprint,
    });
    return current;
  }
  server.replaceTls({ cert: next.cert, key: next.key });
  log.info({ msg: "SIGHUP: TLS certificate reloaded", fingerprint: next.fingerprint });
  return next;
}
