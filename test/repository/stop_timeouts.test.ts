/**
 * The supervisors we ship wait longer than the service may take to stop with the default
 * SHUTDOWN_TIMEOUT and the SHUTDOWN_DELAY they set (the delay, the grace plus 3 s), so a deploy
 * ends in exit 0, never in SIGKILL.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { loadConfig } from "../../src/config/config.ts";

const mostSecondsToStop = loadConfig({}).shutdownTimeoutSeconds + 3;

describe("stop timeouts of the shipped units", () => {
  it("the systemd unit's TimeoutStopSec exceeds its SHUTDOWN_DELAY + SHUTDOWN_TIMEOUT + 3 s", () => {
    const unit = readFileSync("deploy/systemd/animal-store.service", "utf8");
    const seconds = Number(/^TimeoutStopSec=(\d+)$/m.exec(unit)?.[1]);
    const delay = Number(/^Environment=SHUTDOWN_DELAY=(\d+)$/m.exec(unit)?.[1] ?? 0);
    assert.ok(seconds > delay + mostSecondsToStop, `TimeoutStopSec=${seconds}`);
  });

  it("the Containerfile and the deployment guide stop with more than SHUTDOWN_TIMEOUT + 3 s", () => {
    for (const file of ["Containerfile", "docs/deployment.md", "docs/operations.md"]) {
      const text = readFileSync(file, "utf8");
      const waits = [...text.matchAll(/(?:stop |`)-t (\d+)/g)].map((match) => Number(match[1]));
      assert.ok(waits.length > 0, `${file} names no stop timeout`);
      for (const seconds of waits) assert.ok(seconds > mostSecondsToStop, `${file}: -t ${seconds}`);
      // A page that sets a drain delay also says to wait for it.
      const delays = [...text.matchAll(/SHUTDOWN_DELAY=(\d+)/g)].map((match) => Number(match[1]));
      const longest = Math.max(0, ...delays);
      assert.ok(Math.max(...waits) > longest + mostSecondsToStop, `${file}: no -t above the delay`);
    }
  });
});
