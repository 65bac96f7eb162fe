/** The one error the store throws: opening failed. */

/** Opening the store failed; `message` is one line, fit to print before exiting with code 1. */
export class StoreOpenError extends Error {
  override name = "StoreOpenError";
}
