/** The settings a sub-command runs with, or the one-line message and exit code 2 of docs/configuration.md. */
import process from "node:process";
import { type Config, ConfigError, loadConfig } from "../config/config.ts";

/**
 * Reads the settings from the environment. On a bad setting, prints `Cannot <action>: <why>` on
 * stderr and returns undefined: the caller exits with code 2.
 */
export function commandConfig(action: string): Config | undefined {
  try {
    return loadConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`Cannot ${action}: ${error.message}\n`);
    return undefined;
  }
}
