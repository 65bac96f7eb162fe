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
import { type CommandHelp, usage } from "./commands/usage.ts";
import { runServe } from "./commands/serve.ts";
import { runVerify } from "./commands/verify.ts";

interface Command extends CommandHelp {
  /** Runs with the arguments after the name; returns the exit code, or -1 to keep running. */
  readonly run: (args: readonly string[]) => Promise<number>;
}

/** Every sub-command: the one list that `main` dispatches on and `--help` prints. */
const COMMANDS: readonly Command[] = [
  { synopsis: "serve", help: "Start the HTTP service (the default)", run: runServe },
  {
    synopsis: "healthcheck",
    help: "Exit 0 when GET /healthz on HOST:PORT answers 200",
    run: runHealthcheck,
  },
  { synopsis: "verify", help: "Check the data file in DATA_DIR; change nothing", run: runVerify },
  { synopsis: "openapi", help: "Print the OpenAPI 3.1 document and exit", run: runOpenapi },
  { synopsis: "import", help: "Copy DATA_DIR's pets into the empty DATABASE_URL", run: runImport },
  {
    synopsis: "backup PATH",
    help: "Write a consistent copy of the pets to PATH (- for stdout)",
    run: runBackup,
  },
  {
    synopsis: "restore PATH",
    help: "Install a backup (- for stdin) in an empty DATA_DIR",
    run: runRestore,
  },
  { synopsis: "--help", help: "Show this text", run: () => Promise.resolve(printUsage()) },
];

function printUsage(): number {
  process.stdout.write(usage(COMMANDS));
  return 0;
}

async function main(args: readonly string[]): Promise<number> {
  const name = args[0] === "-h" || args[0] === "help" ? "--help" : args[0] ?? "serve";
  // A command takes as many arguments as its synopsis names (`backup PATH`: one).
  const command = COMMANDS.find(({ synopsis }) => synopsis.split(" ")[0] === name);
  if (command === undefined || args.length > command.synopsis.split(" ").length) {
    process.stderr.write(`Unknown command: ${args.join(" ")}\n\n${usage(COMMANDS)}`);
    return 2;
  }
  try {
    return await command.run(args.slice(1));
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
