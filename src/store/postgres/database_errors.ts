/**
 * Which database errors pass (the connection dropped, the server restarts, a statement timed
 * out: answer 503 and retry) and which stop the start (wrong password, no such database).
 */

/** SQLSTATE classes and driver codes of a failure that retrying later may cure. */
const TRANSIENT_SQLSTATE_CLASSES = ["08", "40", "53", "57"];
const TRANSIENT_DRIVER_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
]);

/**
 * True when the connection itself is gone (not a slow or refused statement): the driver's
 * socket errors, SQLSTATE class 08, and the server shutting down or starting (57P01–57P03).
 */
export function isConnectionLost(error: unknown): boolean {
  const code = codeOf(error);
  return TRANSIENT_DRIVER_CODES.has(code) || code.startsWith("08") ||
    code === "57P01" || code === "57P02" || code === "57P03";
}

/** SQLSTATEs no retry will cure: the operator must fix the settings. */
const FATAL_AT_START: Record<string, string> = {
  "28P01": "the password was refused",
  "28000": "the role is not allowed to connect",
  "3D000": "the database does not exist",
  "42501": "the role lacks a privilege the schema needs",
};

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === "string" ? code : "";
}

/** True for a failure that may pass by itself (connection lost, server busy or restarting). */
export function isTransientDatabaseError(error: unknown): boolean {
  const code = codeOf(error);
  if (TRANSIENT_DRIVER_CODES.has(code)) return true;
  return /^[0-9A-Z]{5}$/.test(code) && TRANSIENT_SQLSTATE_CLASSES.includes(code.slice(0, 2));
}

/** Why the store cannot start, when retrying cannot help; undefined when it may. */
export function fatalStartReason(error: unknown): string | undefined {
  const reason = FATAL_AT_START[codeOf(error)];
  if (reason !== undefined) return `${reason} (${codeOf(error)})`;
  if (isTransientDatabaseError(error)) return undefined;
  // TLS failures (a certificate that does not verify) and anything unforeseen: the settings are
  // wrong, so waiting would only hide it.
  return describeDatabaseError(error);
}

/** One line for the log: the driver's or server's code and message, never the URL. */
export function describeDatabaseError(error: unknown): string {
  const code = codeOf(error);
  const message = error instanceof Error ? error.message : String(error);
  const line = message.split("\n")[0];
  return code === "" || line.includes(code) ? line : `${code}: ${line}`;
}
