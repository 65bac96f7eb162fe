/**
 * Started through an npm script (`npm start`, `npm run start:bun`, ...), the service runs as the
 * child of npm. A supervisor that kill -9s npm would leave the service running without it,
 * still holding the port and the data-directory lock, so the restarted service could not start.
 * When npm launched us, this watches for npm going away (our parent pid changes) and stops the
 * service; run directly (a binary, systemd, a container), it does nothing.
 */
import process from "node:process";

/** How often the parent pid is checked: small, so a restart right after a kill finds us gone. */
const CHECK_INTERVAL_MS = 100;

/** Calls `onOrphaned` once if the npm process that launched this one exits. */
export function watchLauncher(onOrphaned: (launcherPid: number) => void): void {
  if (process.env.npm_lifecycle_event === undefined) return;
  const launcherPid = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === launcherPid) return;
    clearInterval(timer);
    onOrphaned(launcherPid);
  }, CHECK_INTERVAL_MS);
  // Never keep the process alive just for this check.
  (timer as { unref?: () => void }).unref?.();
}
