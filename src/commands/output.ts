/** How the sub-commands talk to the operator: one-line failures, addresses, stdout. */
import process from "node:process";

/** A failure: one line on stderr, and the exit code. */
export function fail(line: string, code = 1): number {
  process.stderr.write(`${line}\n`);
  return code;
}

export function authority(host: string, port: number): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}

/** Writes to stdout and waits until it is handed over: backpressure, and the exit cuts nothing off. */
export function writeStdout(chunk: string | Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => {
    process.stdout.write(chunk, (error) => (error ? reject(error) : resolve()));
  });
}
