/**
 * `serve`: read the settings, listen, load the store, serve; on SIGTERM/SIGINT turn `/readyz` to
 * 503 for SHUTDOWN_DELAY while serving as before, then drain (the adapter's `shutdown`: stop
 * accepting, answer with `Connection: close`, close connections left idle), finish requests in
 * flight, close the store (flushing it and releasing the lock) and exit 0; on SIGHUP re-read the
 * keys file and the TLS pair.
 */
import process from "node:process";
import { setTimeout as sleep } from "node:timers/promises";
import { type App, createApp } from "../app.ts";
import { KeyFileError, loadApiKeys, type LoadedKeys } from "../config/api_keys.ts";
import { type Config, loadConfig } from "../config/config.ts";
import { certificateDateWarning } from "../config/tls_pair.ts";
import { KeyRing } from "../http/auth.ts";
import { errorCodeOf } from "../observe/error_code.ts";
import { createJsonLogger, type Logger } from "../observe/log.ts";
import type { OutputStream, RunningServer, RuntimeAdapter } from "../runtime/contract.ts";
import { delay } from "../runtime/process.ts";
import { type OpenedStore, openStore } from "../store/open_store.ts";
import { StoreOpenError } from "../store/store.ts";
import { VERSION } from "../app/version.ts";
import { authority } from "./output.ts";
import { reloadApiKeys, reloadTls } from "./reload.ts";

/**
 * After SHUTDOWN_TIMEOUT, how long the handlers cut off get to finish and the store to flush and
 * close, before the process exits anyway: the whole stop stays within SHUTDOWN_DELAY +
 * SHUTDOWN_TIMEOUT + 3 s.
 */
const AFTER_DEADLINE_MS = 2_000;

/**
 * How long start-up waits for an instance still shutting down to release DATA_DIR ("in use") and
 * the port (its drain keeps the listener for up to the quiet period on Deno and Bun).
 */
const PREDECESSOR_WAIT_MS = 1_500;

/** How long a failure to start waits for stderr to take its line: a stalled reader may never. */
const STDERR_WAIT_MS = 500;

/** The running service's parts, and where its start and its stop stand. */
interface Service {
  readonly config: Config;
  readonly runtime: RuntimeAdapter;
  readonly log: Logger;
  readonly keys: KeyRing;
  readonly app: App;
  server?: RunningServer;
  /** Assigned once listening; a signal during listen runs `stop` before it exists. */
  storeOpening?: Promise<OpenedStore>;
  /** Ends a wait for an unreachable database when a signal asks the service to stop. */
  readonly stopLoading: AbortController;
  stopping: boolean;
  /** Serving from a loaded store (SHUTDOWN_DELAY applies only then). */
  serving: boolean;
}

/** Starts the service; returns -1 while it runs (it exits from its signal handler), or an exit code. */
export async function runServe(): Promise<number> {
  const config = loadConfig(process.env);
  const runtime = await detectRuntime();
  const stderr = runtime.output("stderr");
  let loaded: LoadedKeys;
  try {
    loaded = loadApiKeys(config);
  } catch (error) {
    if (!(error instanceof KeyFileError)) throw error;
    return await failToStart(stderr, `Cannot start: ${error.message}`);
  }
  const keys = new KeyRing(loaded.digests);
  const log = createJsonLogger(runtime.output("stdout"));
  if (config.tls !== undefined) {
    // Once, at start: clients will refuse such a certificate, but the service still starts.
    const warning = certificateDateWarning(config.tls, Date.now());
    if (warning !== undefined) log.warn({ msg: warning, setting: "TLS_CERT_FILE" });
  }
  const app = createApp({ config, keys, log, brotli: runtime.brotliEncoder?.() });
  const service: Service = {
    config,
    runtime,
    log,
    keys,
    app,
    stopLoading: new AbortController(),
    stopping: false,
    serving: false,
  };
  // Signals are heard from the start: a SIGTERM that arrives while the store is still loading
  // also ends in a clean exit 0, with the lock released.
  hearSignals(service);
  try {
    service.server = await listen(service);
  } catch (error) {
    await log.flush();
    const where = `${config.host}:${config.port}`;
    return await failToStart(
      stderr,
      `Cannot start: cannot listen on ${where}: ${(error as Error).message}`,
    );
  }
  const scheme = config.tls === undefined ? "http" : "https";
  const address = `${scheme}://${authority(config.host, service.server.port)}`;
  const loadStarted = performance.now();
  let opened: OpenedStore;
  try {
    opened = await loadStore(service, address);
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
  announce(service, { loaded, opened, address, loadMs });
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
      // A timer that keeps the process alive: nothing else does yet.
      await sleep(50);
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
  // Nothing balances traffic on a service whose launcher is gone: it gets out of the way at once.
  watchLauncher((pid) =>
    void stop(service, `The npm process that started the service (${pid}) is gone`, {
      withDelay: false,
    })
  );
}

/**
 * The stop: `/readyz` 503 for SHUTDOWN_DELAY while serving as before, then the adapter's drain,
 * the requests in flight, the store closed, exit 0. A second signal means "stop now" (an operator
 * who presses Ctrl-C twice, a supervisor that repeats its SIGTERM): it ends SHUTDOWN_DELAY early.
 */
async function stop(
  service: Service,
  reason: string,
  { withDelay = true }: { withDelay?: boolean } = {},
): Promise<void> {
  const { app, config, log } = service;
  if (service.stopping) {
    if (app.endDrainDelay()) log.info({ msg: `${reason} again: ending SHUTDOWN_DELAY early` });
    return;
  }
  service.stopping = true;
  service.stopLoading.abort();
  // The drain delay: a balancer's health check takes the instance out before it stops
  // accepting. Not while the store is still loading: /readyz has said 503 all along.
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
  const untilDeadline = () => Math.max(0, deadline - performance.now());
  log.info({ msg: `${reason}: finishing requests in flight, then exiting`, graceMs });
  // Whatever hangs below (a store that cannot flush to a dying disk), the process is gone in
  // time for a supervisor: exit 1, since the store may not have closed cleanly.
  setTimeout(() => {
    log.error({ msg: "shutdown did not finish in time: exiting without closing the store" });
    void log.flush().then(() => process.exit(1));
  }, graceMs + AFTER_DEADLINE_MS);
  await service.server?.shutdown(untilDeadline());
  // Requests cut off at the deadline end at once (their connection is gone): their log lines.
  await Promise.race([app.idle(), delay(AFTER_DEADLINE_MS / 2)]);
  const opened = await service.storeOpening?.catch(() => undefined);
  await opened?.store.close();
  log.info({ msg: "stopped" });
  await log.flush();
  process.exit(0);
}

/** Opens the store while the server listens (its /readyz answers 503 meanwhile). */
function loadStore(service: Service, address: string): Promise<OpenedStore> {
  const { config, log } = service;
  service.storeOpening = openStore(config, {
    onWarning: (message) => log.warn({ msg: message }),
    onError: (message) => log.error({ msg: message }),
    onInfo: (message) => log.info({ msg: message }),
    // Waiting may last: say where the service listens.
    onWaiting: (message) =>
      log.warn({
        msg: `${message}; listening meanwhile, /readyz answers 503`,
        address,
        port: service.server!.port,
      }),
    lockWaitMs: PREDECESSOR_WAIT_MS,
    signal: service.stopLoading.signal,
  });
  return service.storeOpening;
}

/** The start's log lines: the generated key when one is used, then where the service listens. */
function announce(
  { config, runtime, log, server }: Service,
  { loaded, opened, address, loadMs }: {
    loaded: LoadedKeys;
    opened: OpenedStore;
    address: string;
    loadMs: number;
  },
): void {
  if (loaded.generatedKey !== undefined) {
    log.warn({
      msg:
        `No API_KEYS or API_KEYS_FILE set: using the key generated on first start, kept in ${loaded.generatedKey.file}`,
      apiKey: loaded.generatedKey.key,
    });
  }
  log.info({
    msg: `animal-store ${VERSION} listening on ${address}${config.basePath}`,
    version: VERSION,
    runtime: `${runtime.name} ${runtime.version}`,
    address,
    port: server!.port,
    ...(config.tls === undefined ? {} : { tlsFingerprint: config.tls.fingerprint }),
    store: opened.backend,
    ...(opened.backend === "jsonl" ? { dataDir: config.dataDir, pets: opened.size } : {}),
    loadMs,
  });
}

/** Prints `line` on stderr, waiting at most STDERR_WAIT_MS for it, and returns exit code 1. */
async function failToStart(stderr: OutputStream, line: string): Promise<number> {
  await Promise.race([stderr.write(`${line}\n`).catch(() => {}), delay(STDERR_WAIT_MS)]);
  return 1;
}

/**
 * Started through an npm script, the service is npm's child: a supervisor that kill -9s npm would
 * leave it holding the port and the data directory's lock. So stop once npm is gone (our parent
 * pid changes), checking often enough that a restart right after the kill finds us gone.
 */
function watchLauncher(onOrphaned: (launcherPid: number) => void): void {
  if (process.env.npm_lifecycle_event === undefined) return;
  const launcherPid = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === launcherPid) return;
    clearInterval(timer);
    onOrphaned(launcherPid);
  }, 100);
  (timer as { unref?: () => void }).unref?.();
}

/** The adapter for the runtime this process runs on; the others are never loaded. */
async function detectRuntime(): Promise<RuntimeAdapter> {
  if ("Deno" in globalThis) return (await import("../runtime/deno.ts")).denoRuntime;
  if ("Bun" in globalThis) return (await import("../runtime/bun.ts")).bunRuntime;
  return (await import("../runtime/node.ts")).nodeRuntime;
}
