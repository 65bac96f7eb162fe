/**
 * The set-up most service suites share: a fresh temporary data directory, the service started on
 * it with `API_KEYS` set to the suite's key (and, given a `backend`, that store's fresh settings),
 * and at the end the service stopped, the backend's settings dropped and the directory removed,
 * whatever failed. `useService` does this around a `describe` (in its `before` and `after`),
 * `withService` around one test's body. Suites with set-up of their own (files laid out before
 * the start, mounts, certificates, a second instance) start the service themselves.
 */
import { after, before } from "node:test";
import type { Backend } from "./backends.ts";
import {
  type ServiceProcess,
  type StartOptions,
  startService,
  temporaryDirectory,
} from "./server_process.ts";

/** What a fixture starts: `startService`'s options but the directory, which it makes. */
export interface ServiceOptions extends Omit<StartOptions, "dataDir" | "env"> {
  /** The key set as `API_KEYS`, unless `env` sets that itself. */
  readonly key: string;
  readonly env?: Record<string, string>;
  /** The store to run on: its fresh settings join `env`, and are removed at the end. */
  readonly backend?: Backend;
  /** The prefix of the temporary directory's name. */
  readonly prefix?: string;
}

/** A running service, usable wherever a `ServiceProcess` is, with its directory and settings. */
export interface ServiceFixture extends ServiceProcess {
  /** The temporary data directory. */
  readonly dataDir: string;
  /** The environment it runs with: `API_KEYS`, the backend's settings and `env`. */
  readonly env: Record<string, string>;
  /**
   * Stops the service (SIGTERM) and starts it again on the same directory, with `env` added for
   * this start; resolves with the stopped process's exit code.
   */
  restart(env?: Record<string, string>): Promise<number | string>;
}

/** Starts the service in the enclosing `describe`'s `before` and cleans up in its `after`. */
export function useService(options: ServiceOptions): ServiceFixture {
  const fixture = new Fixture(options);
  before(() => fixture.start());
  after(() => fixture.dispose());
  return fixture;
}

/** Runs `body` with a service started for it, and cleans up once it settles. */
export async function withService<T>(
  options: ServiceOptions,
  body: (service: ServiceFixture) => Promise<T>,
): Promise<T> {
  const fixture = new Fixture(options);
  try {
    await fixture.start();
    return await body(fixture);
  } finally {
    await fixture.dispose();
  }
}

class Fixture implements ServiceFixture {
  #options: ServiceOptions;
  #dir: { path: string; remove: () => void } | undefined;
  #process: ServiceProcess | undefined;
  #env: Record<string, string> = {};
  #removeBackend: () => Promise<void> = () => Promise.resolve();

  constructor(options: ServiceOptions) {
    this.#options = options;
  }

  async start(): Promise<void> {
    this.#dir = temporaryDirectory(this.#options.prefix);
    const settings = await this.#options.backend?.settings();
    if (settings !== undefined) this.#removeBackend = settings.remove;
    this.#env = { API_KEYS: this.#options.key, ...settings?.env, ...this.#options.env };
    this.#process = await this.#start(this.#env);
  }

  async dispose(): Promise<void> {
    try {
      await this.#process?.stop();
    } finally {
      try {
        await this.#removeBackend();
      } finally {
        this.#dir?.remove();
      }
    }
  }

  #start(env: Record<string, string>): Promise<ServiceProcess> {
    const { runtime, wrapper } = this.#options;
    return startService({ dataDir: this.dataDir, env, runtime, wrapper });
  }

  async restart(env: Record<string, string> = {}): Promise<number | string> {
    const code = await this.#running.stop();
    this.#process = await this.#start({ ...this.#env, ...env });
    return code;
  }

  get #running(): ServiceProcess {
    if (this.#process === undefined) throw new Error("The service of this fixture is not started");
    return this.#process;
  }

  get dataDir(): string {
    if (this.#dir === undefined) throw new Error("The service of this fixture is not started");
    return this.#dir.path;
  }
  get env(): Record<string, string> {
    return this.#env;
  }
  get child() {
    return this.#running.child;
  }
  get url() {
    return this.#running.url;
  }
  get port() {
    return this.#running.port;
  }
  get exited() {
    return this.#running.exited;
  }
  stdout(): string {
    return this.#running.stdout();
  }
  stderr(): string {
    return this.#running.stderr();
  }
  kill(signal: NodeJS.Signals): void {
    this.#running.kill(signal);
  }
  stop(signal?: NodeJS.Signals): Promise<number | string> {
    return this.#running.stop(signal);
  }
}
