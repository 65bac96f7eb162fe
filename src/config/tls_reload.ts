/**
 * SIGHUP: read `TLS_CERT_FILE` and `TLS_KEY_FILE` again and, where the runtime can swap the
 * certificate of a running server (Node), serve the new pair to connections opened from now on;
 * open connections keep theirs. A pair that cannot be read, is not PEM or does not match keeps
 * the old one, and the reason is logged as a warning: a half-copied renewal must not take HTTPS
 * down. Where the runtime cannot swap (Deno, Bun), the new pair is still checked, and the log
 * says a restart is needed to serve it.
 */
import type { Logger } from "../log.ts";
import type { RunningServer } from "../runtime/server.ts";
import { ConfigError } from "./settings.ts";
import { readTlsPair, type TlsPair } from "./tls_pair.ts";

/** Re-reads the pair `current` came from; returns the pair now served (the new one, or `current`). */
export function reloadTls(
  current: TlsPair,
  server: Pick<RunningServer, "replaceTls">,
  options: { runtime: string; log: Logger },
): TlsPair {
  const { log } = options;
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
        `SIGHUP: ${options.runtime} cannot swap the TLS certificate of a running server; restart the service to serve the one in TLS_CERT_FILE`,
      fingerprint: current.fingerprint,
      next: next.fingerprint,
    });
    return current;
  }
  server.replaceTls({ cert: next.cert, key: next.key });
  log.info({ msg: "SIGHUP: TLS certificate reloaded", fingerprint: next.fingerprint });
  return next;
}
