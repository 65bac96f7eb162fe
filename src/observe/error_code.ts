/** An error as a short word for a message (`ENOSPC`, `EACCES`), or its message without one. */
export function errorCodeOf(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === "string" ? code : String((error as Error | undefined)?.message ?? error);
}
