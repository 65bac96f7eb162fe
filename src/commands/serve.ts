/**
 * `serve`: listen, load the store, serve; SIGTERM/SIGINT stop it (`stop`), SIGHUP reloads the keys
 * file and the TLS pair (where they fail, the old stay, logged).
 */
import process from "node:process";
import { setTimeout as sleep } from "node:timers/promises";
import { type App, createApp } from "../app.ts";
import { configuredKeys, loadApiKeys } from "../config/api_keys.ts";
import { type Config, loadConfig } from "../config/config.ts";
import { ConfigError } from "../config/settings.ts";
import { certificateDateWarning, readTlsPair, type TlsPair } from "../config/tls_pair.ts";
import { KeyRing } from "../http/auth.ts";
import { errorCodeOf } from "../observe/error_code.ts";
import { createJsonLogger, type Logger } from "../observe/log.ts";
import type { OutputStream, RunningServer, RuntimeAdapter } from "../runtime/contract.ts";
import { delay } from "../runtime/process.ts";
import { type OpenedStore, openStore } from "../store/open_store.ts";
import { StoreOpenError } from "../store/store.ts";
import { VERSION } from "../app/version.ts";
import { authority } from "./output.ts";

/** After SHUTDOWN_TIMEOUT, the time left to finish and close the store before exiting anyway. */
const AFTER_DEADLINE_MS = 2_000;

/** How long start-up waits for a stopping instance to let go of DATA_DIR and the port. */
const PREDECESSOR_WAIT_MS = 1_500;

/** How long a failure to start waits for stderr to take its line: a stalled reader may never. */
const STDERR_WAIT_MS = 500;

interface Service {
  readonly config: Config;
  readonly runtime: RuntimeAdapter;
  readonly log: Logger;
  readonly keys: KeyRing;
  readonly app: App;
  server?: RunningServer;
  /** Assigned once listening (a signal may run `stop` before). */
  storeOpening?: Promise<OpenedStore>;
  /** Ends a wait for an unreachable database when a signal asks the service to stop. */
  readonly stopLoading: AbortController;
  stopping?: boolean;
  /** Serving from a loaded store (SHUTDOWN_DELAY applies only then). */
  serving?: boolean;
}

/** Starts the service; returns -1 while it runs (it exits from its signal handler), or an exit code. */
export async function runServe(): Promise<number> {
  const config = loadConfig(process.env);
  const runtime = await detectRuntime();
  const stderr = runtime.output("stderr");
  const loaded = loadApiKeys(config);
  if (!loaded.ok) {
    return await failToStart(stderr, `Cannot start: ${loaded.reason}`);
  }
  const keys = new KeyRing(loaded.digests);
  const log = createJsonLogger(runtime.output("stdout"));
  // Once, at start: clients will refuse such a certificate, but the service still starts.
  const warning = config.tls && certificateDateWarning(config.tls, Date.now());
  if (warning) log.warn({ msg: warning, setting: "TLS_CERT_FILE" });
  const app = createApp({ config, keys, log, brotli: runtime.brotliEncoder?.() });
  const service: Service = { config, runtime, log, keys, app, stopLoading: new AbortController() };
  // Heard from the start: a SIGTERM while the store loads also exits 0, the lock released.
  hearSignals(service);
  try {
    service.server = await listen(service);
  } catch (error) {
    await log.flush();
    const reason = `cannot listen on ${config.host}:${config.port}: ${(error as Error).message}`;
    return await failToStart(stderr, `Cannot start: ${reason}`);
  }
  const port = service.server.port;
  const address = `${config.tls ? "https" : "http"}://${authority(config.host, port)}`;
  const loadStarted = performance.now();
  // The store opens while the server listens, its /readyz answering 503 meanwhile.
  service.storeOpening = openStore(config, {
    onWarning: (message) => log.warn({ msg: message }),
    onError: (message) => log.error({ msg: message }),
    onInfo: (message) => log.info({ msg: message }),
    onWaiting: (message) =>
      log.warn({ msg: `${message}; listening meanwhile, /readyz answers 503`, address, port }),
    lockWaitMs: PREDECESSOR_WAIT_MS,
    signal: service.stopLoading.signal,
  });
  let opened: OpenedStore;
  try {
    opened = await service.storeOpening;
  } catch (error) {
    if (service.stopping) return -1; // stop() exits 0
    if (!(error instanceof StoreOpenError)) throw error;
    await log.flush();
    await service.server.shutdown(0);
    return await failToStart(stderr, error.message);
  }
  if (service.stopping) return -1; // stop() closes the store and exits
  const loadMs = Math.round(performance.now() - loadStarted);
  app.metrics?.storeLoaded(loadMs / 1000);
  app.ready(opened.store);
  service.serving = true;
  if (loaded.generatedKey !== undefined) {
    const { key, file } = loaded.generatedKey;
    const msg = `No API_KEYS or API_KEYS_FILE set: using the key generated on first start, kept in`;
    log.warn({ msg: `${msg} ${file}`, apiKey: key });
  }
  log.info({
    msg: `animal-store ${VERSION} listening on ${address}${config.basePath}`,
    version: VERSION,
    runtime: `${runtime.name} ${runtime.version}`,
    address,
    port,
    ...(config.tls && { tlsFingerprint: config.tls.fingerprint }),
    store: opened.backend,
    ...(opened.backend === "jsonl" ? { dataDir: config.dataDir, pets: opened.size } : {}),
    loadMs,
  });
  return -1;
}

/** Listens, retrying while the port is taken, for as long as an instance may take to let it go. */
async function listen(service: Service): Promise<RunningServer> {
  const { app, config: { port, host, tls }, log, runtime } = service;
  const onWarning = (message: string) => log.warn({ msg: message });
  const giveUpAt = performance.now() + PREDECESSOR_WAIT_MS;
  for (;;) {
    try {
      return await runtime.serve({ handle: app.handle, port, host, tls, onWarning });
    } catch (error) {
      const taken = errorCodeOf(error) === "EADDRINUSE" && port !== 0;
      if (!taken || service.stopping || performance.now() > giveUpAt) throw error;
      await sleep(50); // a timer that keeps the process alive: nothing else does yet
    }
  }
}

/** SIGTERM and SIGINT stop the service, SIGHUP reloads the keys and the TLS pair. */
function hearSignals(service: Service): void {
  const { config, runtime, keys, log } = service;
  runtime.onSignal("SIGTERM", () => void stop(service, "SIGTERM received"));
  runtime.onSignal("SIGINT", () => void stop(service, "SIGINT received"));
  let servedTls = config.tls;
  runtime.onSignal("SIGHUP", () => {
    reloadApiKeys(config, keys, log);
    if (servedTls !== undefined && service.server !== undefined) {
      servedTls = reloadTls(servedTls, service.server, { runtime: runtime.name, log });
    }
  });
  // Started by npm, the service is its child: a supervisor that kill -9s npm would leave it
  // holding the port and the lock. So it stops at once when its parent changes.
  if (process.env.npm_lifecycle_event === undefined) return;
  const launcherPid = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === launcherPid) return;
    clearInterval(timer);
    void stop(service, `The npm process that started the service (${launcherPid}) is gone`, false);
  }, 100);
  (timer as { unref?: () => void }).unref?.();
}

/**
 * The stop: `/readyz` 503 for SHUTDOWN_DELAY while serving as before, then the adapter's drain,
 * the requests in flight, the store closed, exit 0. A second signal (Ctrl-C twice, a repeated
 * SIGTERM) ends SHUTDOWN_DELAY early.
 */
async function stop(service: Service, reason: string, withDelay = true): Promise<void> {
  const { app, config, log } = service;
  if (service.stopping) {
    if (app.endDrainDelay()) log.info({ msg: `${reason} again: ending SHUTDOWN_DELAY early` });
    return;
  }
  service.stopping = true;
  service.stopLoading.abort();
  // Not while the store is still loading: /readyz has said 503 all along.
  const delayMs = service.serving && withDelay ? config.shutdownDelaySeconds * 1000 : 0;
  if (delayMs > 0) {
    log.info({
      msg: `${reason}: /readyz answers 503 for SHUTDOWN_DELAY, serving as before meanwhile`,
      delayMs,
    });
  }
  await app.drain(delayMs);
  const graceMs = config.shutdownTimeoutSeconds * 1000;
  const deadline = performance.now() + graceMs;
  log.info({ msg: `${reason}: finishing requests in flight, then exiting`, graceMs });
  // Whatever hangs below (a store that cannot flush to a dying disk), the process is gone in
  // time for a supervisor: exit 1, since the store may not have closed cleanly.
  setTimeout(() => {
    log.error({ msg: "shutdown did not finish in time: exiting without closing the store" });
    void log.flush().then(() => process.exit(1));
  }, graceMs + AFTER_DEADLINE_MS);
  await service.server?.shutdown(Math.max(0, deadline - performance.now()));
  // Requests cut off at the deadline end at once (their connection is gone): their log lines.
  await Promise.race([app.idle(), delay(AFTER_DEADLINE_MS / 2)]);
  const opened = await service.storeOpening?.catch(() => undefined);
  await opened?.store.close();
  log.info({ msg: "stopped" });
  await log.flush();
  process.exit(0);
}

/**
 * Re-reads `API_KEYS_FILE` (with `API_KEYS` as at start) and swaps the keys; returns whether it
 * did. A bad file keeps the old set: a typo must not lock every client out. Keys are never logged.
 */
export function reloadApiKeys(config: Config, keys: KeyRing, log: Logger): boolean {
  if (config.apiKeysFile === undefined) {
    log.info({ msg: "SIGHUP: no API_KEYS_FILE set, so the accepted keys stay as they are" });
    return false;
  }
  const digests = reread(() => configuredKeys(config), log, `${keys.size} API keys`, {});
  if (digests === undefined) return false;
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
  const { fingerprint } = current;
  const read = () => readTlsPair(current.certFile, current.keyFile);
  const next = reread(read, log, "TLS certificate", { fingerprint });
  if (next === undefined) return current;
  if (server.replaceTls === undefined) {
    log.warn({
      msg:
        `SIGHUP: ${runtime} cannot swap the TLS certificate of a running server; restart the service to serve the one in TLS_CERT_FILE`,
      fingerprint,
      next: next.fingerprint,
    });
    return current;
  }
  server.replaceTls({ cert: next.cert, key: next.key });
  log.info({ msg: "SIGHUP: TLS certificate reloaded", fingerprint: next.fingerprint });
  return next;
}

/** Prints `line` on stderr, waiting at most STDERR_WAIT_MS for it, and returns exit code 1. */
async function failToStart(stderr: OutputStream, line: string): Promise<number> {
  await Promise.race([stderr.write(`${line}\n`).catch(() => {}), delay(STDERR_WAIT_MS)]);
  return 1;
}

/** The adapter for the runtime this process runs on; the others are never loaded. */
async function detectRuntime(): Promise<RuntimeAdapter> {
  if ("Deno" in globalThis) return (await import("../runtime/deno.ts")).denoRuntime;
  if ("Bun" in globalThis) return (await import("../runtime/bun.ts")).bunRuntime;
  return (await import("../runtime/node.ts")).nodeRuntime;
}

/** `read()`, or undefined once its `ConfigError` is logged as keeping the previous `what`. */
function reread<T>(read: () => T, log: Logger, what: string, fields: object): T | undefined {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const msg = `SIGHUP: keeping the previous ${what}: ${error.message}`;
    log.warn({ msg, setting: error.setting, ...fields });
    return undefined;
  }
}
