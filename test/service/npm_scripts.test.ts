/**
 * The service as the npm scripts start it (`npm start`, `npm run start:bun`,
 * `npm run start:node`), the way an operator or a test harness outside the project does: a
 * SIGTERM to npm stops the service with exit 0, and a kill -9 of npm does not leave the service
 * running without it, holding the port and the data directory.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, readFileSync, realpathSync, symlinkSync } from "node:fs";
import { join, resolve } from "node:path";
import process from "node:process";
import { describe, it } from "node:test";
import {
  freeFixedPort,
  freePort,
  targetRuntime,
  temporaryDirectory,
  waitFor,
} from "../support/server_process.ts";

const ROOT = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "../..");
const KEY = "npm-scripts-key";
const SCRIPTS = { deno: "start", bun: "start:bun", node: "start:node" } as const;
const runtime = targetRuntime();
const script = runtime === "executable" ? undefined : SCRIPTS[runtime];

const answers = (url: string) => async (): Promise<boolean> => {
  try {
    const response = await fetch(url);
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  }
};
/** The pid in the data directory's lock file, if there is one. */
function lockOwner(dataDir: string): number | undefined {
  try {
    return JSON.parse(readFileSync(join(dataDir, "animal-store.lock"), "utf8")).pid;
  } catch {
    return undefined;
  }
}

const refuses = (url: string) => () => fetch(url).then(() => false, () => true);

function npmStart(
  port: number,
  dataDir: string,
): { child: ChildProcess; exited: Promise<number | string> } {
  const child = spawn("npm", ["run", "--silent", script!], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      API_KEYS: KEY,
    },
    stdio: ["ignore", "ignore", "ignore"],
  });
  const exited = new Promise<number | string>((done) =>
    child.on("exit", (code, signal) => done(code ?? signal ?? -1))
  );
  return { child, exited };
}

describe(`npm run ${script ?? "(none for the executable)"}`, {
  timeout: 90_000,
  skip: script === undefined,
}, () => {
  it("exits 0 on a SIGTERM sent to npm", async () => {
    const dir = temporaryDirectory();
    try {
      const port = await freePort();
      const { child, exited } = npmStart(port, dir.path);
      await waitFor(answers(`http://127.0.0.1:${port}/readyz`), "ready", 30_000);
      process.kill(child.pid!, "SIGTERM");
      assert.equal(await exited, 0);
      await waitFor(refuses(`http://127.0.0.1:${port}/healthz`), "stopped", 5_000);
    } finally {
      dir.remove();
    }
  });

  it("stops the service when npm is killed with SIGKILL, so a restart gets the data back", async () => {
    const dir = temporaryDirectory();
    try {
      const port = await freeFixedPort();
      const first = npmStart(port, dir.path);
      const base = `http://127.0.0.1:${port}`;
      await waitFor(answers(`${base}/readyz`), "ready", 30_000);
      const created = await fetch(`${base}/v1/pets`, {
        method: "POST",
        headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
        body: '{"name":"Survivor","categoryId":9007199254740993}',
      });
      assert.equal(created.status, 201);
      const pet = await created.text();
      const firstOwner = lockOwner(dir.path);
      process.kill(first.child.pid!, "SIGKILL");
      await first.exited;
      // Restart at once, as a supervisor would: the old service must get out of the way. Until
      // it has, /readyz may still be answered by it, so wait for the new owner of the lock.
      const second = npmStart(port, dir.path);
      const restarted = async () => {
        const owner = lockOwner(dir.path);
        return owner !== undefined && owner !== firstOwner && await answers(`${base}/readyz`)();
      };
      await waitFor(restarted, "the restart became ready", 30_000);
      // Through the list, which does not depend on the date (GET /pets/{id} is sunset in 2030).
      const fetched = await fetch(`${base}/v1/pets?limit=1`, {
        headers: { authorization: `Bearer ${KEY}` },
      });
      assert.equal(await fetched.text(), `[${pet}]`);
      process.kill(second.child.pid!, "SIGTERM");
      assert.equal(await second.exited, 0);
    } finally {
      dir.remove();
    }
  });

  it("npm start runs deno with exactly the permissions of deno task start", () => {
    const packageJson = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
    const denoJson = JSON.parse(readFileSync(join(ROOT, "deno.json"), "utf8"));
    const flags = (command: string) => command.split(" ").filter((word) => word.startsWith("--"));
    assert.deepEqual(flags(packageJson.scripts.start), flags(denoJson.tasks.start));
  });

  it("deno.json tasks call Deno by its path, never as bare `deno`", () => {
    // With node_modules/.bin/deno present (npm ci), `deno task` would run a bare `deno` as an
    // npm bin script, i.e. try to execute the Deno binary as JavaScript.
    const denoJson = JSON.parse(readFileSync(join(ROOT, "deno.json"), "utf8"));
    for (const [name, command] of Object.entries<string>(denoJson.tasks)) {
      assert.doesNotMatch(command, /(^|[;&|]\s*)deno\s/, `task ${name}: ${command}`);
    }
  });
});

describe("deno task start on a machine with Deno alone", {
  timeout: 120_000,
  skip: runtime !== "deno" && "the Deno start only",
}, () => {
  it("runs after `deno install --prod`, which installs the runtime dependencies and nothing else", async () => {
    const dir = temporaryDirectory("deno-alone-");
    try {
      // A fresh checkout: the tracked files `deno install` and `deno task start` read, and no
      // node_modules. PATH finds deno and nothing else (no node, no npm).
      const checkout = join(dir.path, "checkout");
      const files = [
        "deno.json",
        "package.json",
        "package-lock.json",
        "scripts/bench/package.json",
      ];
      for (const path of [...files, "src"]) {
        cpSync(join(ROOT, path), join(checkout, path), { recursive: true });
      }
      const bin = join(dir.path, "bin");
      mkdirSync(bin);
      symlinkSync(realpathSync(join(ROOT, "node_modules/.bin/deno")), join(bin, "deno"));
      // The npm registry is needed while Deno's cache (under HOME) lacks the packages.
      const env = { HOME: process.env.HOME, PATH: bin, DENO_TLS_CA_STORE: "mozilla,system" };
      const install = spawnSync(join(bin, "deno"), ["install", "--prod"], {
        cwd: checkout,
        env,
        encoding: "utf8",
        timeout: 90_000,
      });
      assert.equal(install.status, 0, install.stderr);
      const installed = readdirSync(join(checkout, "node_modules")).filter((name) =>
        name[0] !== "."
      );
      assert.deepEqual(installed.sort(), ["brotli-wasm", "pg", "typebox"]);

      let output = "";
      const child = spawn(join(bin, "deno"), ["task", "start"], {
        cwd: checkout,
        env: { ...env, PORT: "0", HOST: "127.0.0.1", DATA_DIR: "data", API_KEYS: KEY },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let ended = false;
      const exited = new Promise<void>((done) =>
        child.on("exit", () => {
          ended = true;
          done();
        })
      );
      child.stdout!.on("data", (chunk) => output += chunk);
      child.stderr!.on("data", (chunk) => output += chunk);
      const listening = () => output.includes("listening on http://127.0.0.1:");
      await waitFor(() => ended || listening(), "listening", 30_000);
      assert.ok(listening(), output);
      // `deno task` passes the SIGTERM on to the service and ends by the signal itself.
      child.kill("SIGTERM");
      await exited;
      assert.match(output, /"msg":"stopped"/);
    } finally {
      dir.remove();
    }
  });
});
