/** Finding the system tools some suites drive (chromium, strace), as `.ci/run` finds them. */
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, join } from "node:path";

/** The first executable `name` on PATH, as the shell's `command -v` finds it, or undefined. */
export function onPath(name: string): string | undefined {
  for (const directory of (process.env.PATH ?? "").split(delimiter)) {
    if (directory === "") continue;
    const candidate = join(directory, name);
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // Not in this directory.
    }
  }
  return undefined;
}
