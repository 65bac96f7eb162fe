// A throw-away PostgreSQL server for the tests and benchmarks: initdb into a temporary directory,
// start it on a free loopback port (no Unix socket outside that directory), stop it and delete
// everything afterwards. Needs PostgreSQL's server binaries (Debian: `apt-get install
// postgresql`); as root, the server runs as the `postgres` user, since it refuses to run as root.
//
//   node scripts/postgres_cluster.mjs   starts one, prints its URL, stops it on Ctrl-C
import { execFile, execFileSync, spawnSync } from "node:child_process";
import {
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";

/** The directory of initdb and pg_ctl, or undefined when PostgreSQL's server is not installed. */
export function findPostgresBin() {
  const fromPath = spawnSync("pg_config", ["--bindir"], { encoding: "utf8" });
  const candidates = [];
  if (fromPath.status === 0) candidates.push(fromPath.stdout.trim());
  if (existsSync("/usr/lib/postgresql")) {
    const versions = readdirSync("/usr/lib/postgresql").sort((a, b) => Number(b) - Number(a));
    for (const version of versions) candidates.push(`/usr/lib/postgresql/${version}/bin`);
  }
  return candidates.find((dir) =>
    existsSync(join(dir, "initdb")) && existsSync(join(dir, "pg_ctl"))
  );
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts a cluster; returns `{ url, adminUrl, port, adminSql(sql, database?), stop() }`. `url`
 * names a database made for the caller (`animal_store`); `adminUrl` the `postgres` database, to
 * create more (`adminSql` runs SQL there, or in `database`, with psql and returns its output).
 * Options: `settings` (extra `name=value` server settings), `files` ({ name: content } written
 * beside the data directory, mode 0600, before the start, e.g. a TLS key and certificate;
 * `{dir}` in a setting stands for that directory).
 *
 * For fault tests: `crash()` stops the server as a power cut would (`pg_ctl stop -m immediate`:
 * no checkpoint, connections dropped), `startAsync()` starts it again on the same port and data
 * without blocking the caller's event loop (a test that times requests meanwhile measures the
 * service, not its own wait for `pg_ctl`), `freeze()` stops the postmaster and every backend with
 * SIGSTOP (a server that no longer answers, while the kernel still holds its sockets open) and
 * `thaw()` lets them go on with SIGCONT.
 */
export async function startPostgresCluster(options = {}) {
  const bin = findPostgresBin();
  if (bin === undefined) throw new Error("PostgreSQL server binaries (initdb, pg_ctl) not found");
  const asRoot = process.getuid?.() === 0;
  /** [file, argv] that run a PostgreSQL binary, as the `postgres` user when root. */
  const command = (name, args) =>
    asRoot
      ? ["runuser", ["-u", "postgres", "--", join(bin, name), ...args]]
      : [join(bin, name), args];
  const run = (name, args) =>
    execFileSync(...command(name, args), { stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" });
  const dir = mkdtempSync(join(tmpdir(), "animal-store-pg-")); // mode 0700, as initdb wants
  // As root, everything the server reads must belong to the user it runs as.
  const id = (flag) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }));
  const owner = asRoot ? { uid: id("-u"), gid: id("-g") } : undefined;
  if (owner !== undefined) chownSync(dir, owner.uid, owner.gid);
  for (const [name, content] of Object.entries(options.files ?? {})) {
    const path = join(dir, name);
    writeFileSync(path, content, { mode: 0o600 });
    if (owner !== undefined) chownSync(path, owner.uid, owner.gid);
  }
  const data = join(dir, "data");
  const port = await freePort();
  // --no-sync: a throw-away cluster's initial files need not reach the disk before it starts.
  const initdbFlags = "-A trust -U postgres -E UTF8 --locale=C.UTF-8 --no-sync".split(" ");
  run("initdb", ["-D", data, ...initdbFlags]);
  // fsync stays on unless `settings` turns it off: the benchmarks and the outage test measure real
  // commits.
  const settings = [
    "-c listen_addresses=127.0.0.1",
    `-c port=${port}`,
    `-c unix_socket_directories=${dir}`,
    "-c max_connections=200",
    ...(options.settings ?? []).map((setting) => `-c ${setting.replaceAll("{dir}", dir)}`),
  ].join(" ");
  const startArgs = ["-D", data, "-o", settings, "-l", join(dir, "server.log"), "-w", "start"];
  run("pg_ctl", startArgs);
  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const url = `postgres://postgres@127.0.0.1:${port}/animal_store`;
  /** Runs SQL with psql (no client library needed) on `database`; its output. */
  const adminSql = (sql, database = "postgres") => {
    const target = adminUrl.replace(/\/postgres$/, `/${database}`);
    // NOTICEs ("does not exist, skipping") are not errors.
    const env = { ...process.env, PGOPTIONS: "-c client_min_messages=warning" };
    return execFileSync(join(bin, "psql"), [target, "-qAt", "-c", sql], { encoding: "utf8", env });
  };
  adminSql("CREATE DATABASE animal_store");
  let stopped = false;
  /** The postmaster's pid (first line of postmaster.pid) and its children's, from /proc. */
  const serverPids = () => {
    const postmaster = Number(readFileSync(join(data, "postmaster.pid"), "utf8").split("\n")[0]);
    const children = readdirSync("/proc").filter((name) => /^\d+$/.test(name)).filter((pid) => {
      try {
        // The parent pid is the 2nd field after the parenthesised command name.
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === postmaster;
      } catch {
        return false; // gone meanwhile
      }
    }).map(Number);
    return [postmaster, ...children];
  };
  const stopServer = () => run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
  const signalServer = (signal) => {
    for (const pid of serverPids()) {
      try {
        process.kill(pid, signal);
      } catch { /* exited meanwhile */ }
    }
  };
  return {
    url,
    adminUrl,
    port,
    adminSql,
    crash: stopServer,
    startAsync: () =>
      new Promise((resolve, reject) =>
        execFile(...command("pg_ctl", startArgs), (error) => (error ? reject(error) : resolve()))
      ),
    freeze: () => signalServer("SIGSTOP"),
    thaw: () => signalServer("SIGCONT"),
    stop() {
      if (stopped) return;
      stopped = true;
      try {
        signalServer("SIGCONT"); // a frozen server could not stop
      } catch { /* not running */ }
      try {
        stopServer();
      } catch { /* already stopped */ }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// Run as a command, not when imported (nor when bundled into a benchmark).
if (process.argv[1]?.endsWith("postgres_cluster.mjs")) {
  const cluster = await startPostgresCluster();
  console.log(cluster.url);
  process.on("exit", () => cluster.stop());
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => process.exit(0));
  setInterval(() => {}, 1 << 30);
}
