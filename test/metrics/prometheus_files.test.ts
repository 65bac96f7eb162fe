/** The shipped Prometheus files: the scrape config and the alert rules pass promtool. */
import assert from "node:assert/strict";
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { promtool, skipWithoutPromtool } from "../support/promtool.ts";
import { temporaryDirectory } from "../support/server_process.ts";

const DEPLOY = join(dirname(fileURLToPath(import.meta.url)), "../../deploy/prometheus");
const KEY_PATH = "/etc/prometheus/animal-store.key";

describe("deploy/prometheus", { skip: skipWithoutPromtool }, () => {
  const dir = temporaryDirectory();
  after(() => dir.remove());

  it("prometheus.yml passes promtool check config, with its key file in place", () => {
    const config = readFileSync(join(DEPLOY, "prometheus.yml"), "utf8");
    assert.ok(config.includes(`credentials_file: ${KEY_PATH}`), "the key comes from a file");
    // promtool checks that the key file exists: the test puts one where the copy points.
    writeFileSync(join(dir.path, "animal-store.key"), "a-key\n", { mode: 0o400 });
    writeFileSync(
      join(dir.path, "prometheus.yml"),
      config.replace(KEY_PATH, join(dir.path, "animal-store.key")),
    );
    copyFileSync(join(DEPLOY, "alerts.yml"), join(dir.path, "alerts.yml"));
    const checked = promtool(["check", "config", join(dir.path, "prometheus.yml")]);
    assert.equal(checked.status, 0, checked.output);
    assert.match(checked.output, /SUCCESS: 9 rules found/);
  });

  it("alerts.yml passes promtool check rules with no lint findings", () => {
    const checked = promtool(["check", "rules", join(DEPLOY, "alerts.yml")]);
    assert.equal(checked.status, 0, checked.output);
    assert.doesNotMatch(checked.output, /WARNING|lint/i, checked.output);
  });

  it("the alerts fire on the series they are written for (promtool test rules)", () => {
    const checked = promtool(["test", "rules", join(DEPLOY, "alerts_test.yml")]);
    assert.equal(checked.status, 0, checked.output);
  });
});
