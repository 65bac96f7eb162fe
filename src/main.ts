/**
 * Entry point on every runtime and in the single executable: picks the sub-command. Exit codes
 * (docs/configuration.md): 2 for a bad setting or usage, 1 for any other failure to start.
 */
import process from "node:process";
import { runBackup } from "./commands/backup.ts";
import { runHealthcheck } from "./commands/healthcheck.ts";
import { runImport } from "./commands/import.ts";
import { runOpenapi } from "./commands/openapi.ts";
import { runRestore } from "./commands/restore.ts";
import { USAGE } from "./commands/usage.ts";
import { runServe } from "./commands/serve.ts";
import { runVerify } from "./commands/verify.ts";

const commands: Record<string, (args: readonly string[]) => Promise<number>> = {
  serve: runServe,
  healthcheck: runHealthcheck,
  verify: runVerify,
  openapi: runOpenapi,
  import: runImport,
  backup: runBackup,
  restore: runRestore,
};

/** Commands that take one argument (a PATH). */
const TAKES_PATH = new Set(["backup", "restore"]);

async function main(args: readonly string[]): Promise<number> {
  const name = args[0] ?? "serve";
  if (name === "--help" || name === "-h" || name === "help") {
    process.stdout.write(USAGE);
    return 0;
  }
  const command = commands[name];
  if (command === undefined || args.length > (TAKES_PATH.has(name) ? 2 : 1)) {
    process.stderr.write(`Unknown command: ${args.join(" ")}\n\n${USAGE}`);
    return 2;
  }
  try {
    return await command(args.slice(1));
  } catch (error) {
    // A failure nothing else explained (a bug, or an environment the checks did not foresee):
    // still one line and exit 1, as docs/configuration.md promises for every failure to start.
    const reason = error instanceof Error ? error.message : String(error);
    process.stderr.write(`Cannot ${name}: ${reason.split("\n")[0]}\n`);
    return 1;
  }
}

const exitCode = await main(process.argv.slice(2));
// `serve` keeps running (it returns -1) and exits from its shutdown handler.
if (exitCode >= 0) process.exit(exitCode);
