/** The `--help` text: the sub-commands `main.ts` dispatches on and every setting of the table. */
import { type Setting, SETTINGS } from "../config/settings.ts";

/** A sub-command as `--help` lists it. */
export interface CommandHelp {
  /** Its name and arguments: `backup PATH`. */
  readonly synopsis: string;
  readonly help: string;
}

/** Renders the usage text for `commands`. */
export function usage(commands: readonly CommandHelp[]): string {
  const command = ({ synopsis, help }: CommandHelp) => `  ${synopsis.padEnd(14)}${help}\n`;
  const setting = ([name, { default: fallback, values, help }]: [string, Setting<unknown>]) =>
    `  ${name}  ${values}${fallback === undefined ? "" : ` (default ${fallback})`}\n    ${help}\n`;
  return `animal-store — the Animal Store API (v1)

Usage: animal-store [command]

Commands:
${commands.map(command).join("")}
Settings (environment variables; docs/configuration.md has the whole story):
${Object.entries(SETTINGS).map(setting).join("")}
Exit codes: 0 ok; 1 failure (data directory in use, damaged data file, database refused or
missing); 2 bad setting or usage.
`;
}
