/**
 * Entry point on every runtime and in the single executable: picks the sub-command. Exit codes
 * (docs/configuration.md): 2 for a bad setting or usage, 1 for any other failure to start.
 */
import process from "node:process";
import { runBackup, runImport, runRestore, runVerify } from "./commands/data_tools.ts";
import { runHealthcheck } from "./commands/healthcheck.ts";
import { runOpenapi } from "./commands/openapi.ts";
import { runServe } from "./commands/serve.ts";
import { ConfigError, SETTINGS } from "./config/settings.ts";
import { VERSION } from "./app/version.ts";

interface Command {
  readonly help: string;
  /** Runs with the arguments after the name; returns the exit code, or -1 to keep running. */
  readonly run: (args: readonly string[]) => Promise<number>;
  /** What a bad setting stops, `Cannot <action>: <why>` (exit 2); the name when not given. */
  readonly action?: string;
}

/** Every sub-command by name and arguments (`backup PATH`: one): `main` and `--help` read it. */
const COMMANDS: Readonly<Record<string, Command>> = {
  serve: { help: "Start the HTTP service (the default)", run: runServe, action: "start" },
  healthcheck: {
    help: "Exit 0 when GET /healthz on HOST:PORT answers 200",
    run: runHealthcheck,
    action: "check health",
  },
  "verify [PATH]": {
    help: "Check the data file in DATA_DIR, or the backup PATH (- for stdin); change nothing",
    run: runVerify,
  },
  openapi: {
    help: "Print the OpenAPI 3.1 document and exit",
    run: runOpenapi,
    action: "print the OpenAPI document",
  },
  "import [PATH]": {
    help: "Copy DATA_DIR's pets, or the backup PATH's, into the empty DATABASE_URL",
    run: runImport,
  },
  "backup PATH": {
    help: "Write a consistent copy of the pets to PATH (- for stdout)",
    run: runBackup,
  },
  "restore PATH": { help: "Install a backup (- for stdin) in an empty DATA_DIR", run: runRestore },
  "--help": { help: "Show this text", run: () => Promise.resolve(printUsage()) },
};

function printUsage(): number {
  process.stdout.write(usage());
  return 0;
}

function usage(): string {
  const commands = Object.entries(COMMANDS).map(([synopsis, { help }]) =>
    `  ${synopsis.padEnd(14)}${help}\n`
  );
  const settings = Object.entries(SETTINGS).map(([name, { default: fallback, values, help }]) =>
    `  ${name}  ${values}${fallback === undefined ? "" : ` (default ${fallback})`}\n    ${help}\n`
  );
  return `animal-store ${VERSION} — the Animal Store API (v1)

Usage: animal-store [command]

Commands:
${commands.join("")}
Settings (environment variables; docs/configuration.md has the whole story):
${settings.join("")}
Exit codes: 0 ok; 1 failure (data directory in use, damaged data file, database refused or
missing); 2 bad setting or usage.
`;
}

async function main(args: readonly string[]): Promise<number> {
  const name = args[0] === "-h" || args[0] === "help" ? "--help" : args[0] ?? "serve";
  const [synopsis, command] =
    Object.entries(COMMANDS).find(([synopsis]) => synopsis.split(" ")[0] === name) ?? [];
  if (command === undefined || args.length > synopsis!.split(" ").length) {
    process.stderr.write(`Unknown command: ${args.join(" ")}\n\n${usage()}`);
    return 2;
  }
  try {
    return await command.run(args.slice(1));
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`Cannot ${command.action ?? name}: ${error.message}\n`);
      return 2;
    }
    // Anything else (a bug, an environment not foreseen): one line and exit 1 all the same.
    const reason = error instanceof Error ? error.message : String(error);
    process.stderr.write(`Cannot ${name}: ${reason.split("\n")[0]}\n`);
    return 1;
  }
}

const exitCode = await main(process.argv.slice(2));
// `serve` keeps running (it returns -1) and exits from its shutdown handler.
if (exitCode >= 0) process.exit(exitCode);
