/** The contract's errors: one `HttpError` type, and the one place that writes the Error body. */
import type { ErrorCode, ErrorDetail } from "../schemas/error.ts";
import type { HeaderSet } from "./responses.ts";
import type { Reply } from "../runtime/contract.ts";

/** An error a handler returns or throws; turned into a reply by `errorReply`. */
export class HttpError extends Error {
  readonly details: readonly ErrorDetail[] | undefined;
  readonly headers: Readonly<Record<string, string>> | undefined;

  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    options: { details?: readonly ErrorDetail[]; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = "HttpError";
    this.details = options.details;
    this.headers = options.headers;
  }
}

/** The headers of a 503 or 409 whose request may be sent again in a second. */
export const RETRY_IN_A_SECOND: Readonly<Record<string, string>> = { "retry-after": "1" };

/** The Error body as a JSON reply, on top of the path's constant `base` headers. */
export function errorReply(error: HttpError, requestId: string, base: HeaderSet): Reply {
  const { code, message, status, details } = error;
  return {
    status,
    // JSON.stringify leaves out `details` when undefined.
    body: JSON.stringify({ code, message, status, details, requestId }),
    headers: { ...base, "content-type": "application/json", ...error.headers },
  };
}

/** The client went away mid-body: logged and counted as nginx's 499, never a server error. */
export class ClientGoneError extends Error {
  readonly status = 499;

  constructor(cause: unknown) {
    super("The client went away before its request was read in full", { cause });
    this.name = "ClientGoneError";
  }
}
