/**
 * The docs page in a real browser (Debian's chromium through playwright-core) against the real
 * service process: it loads with no failed request, lists the three operations, shows getPet
 * as deprecated with its sunset, "Try it" on listPets with a key shows the pets, and its
 * "Revalidate" button sends the ETag in If-None-Match and shows the 304.
 *
 * chromium is found as `.ci/run` finds it (`command -v chromium`): the first `chromium` on PATH.
 * Without one the suite is skipped with a notice, except under REQUIRE_CHROMIUM=1 (CI), where a
 * missing browser fails the run instead of hiding the test.
 */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import {
  type ServiceProcess,
  startService,
  temporaryDirectory,
} from "../support/server_process.ts";
import { onPath } from "../support/executables.ts";

const KEY = "docs-browser-test-key";
const ARTIFACTS = join(dirname(fileURLToPath(import.meta.url)), "..", "artifacts");

const CHROMIUM = onPath("chromium");
if (CHROMIUM === undefined) {
  if (process.env.REQUIRE_CHROMIUM === "1") {
    throw new Error("REQUIRE_CHROMIUM=1 but no chromium on PATH (apt-get install chromium)");
  }
  console.log("docs_page_browser: skipped: no chromium on PATH");
}
const suite = CHROMIUM !== undefined ? describe : describe.skip;

suite("docs page in chromium", () => {
  let service: ServiceProcess;
  let dataDir: { path: string; remove: () => void };

  before(async () => {
    dataDir = temporaryDirectory();
    service = await startService({ dataDir: dataDir.path, env: { API_KEYS: KEY } });
    for (const [name, status] of [["Rex", "available"], ["Tom", "sold"], ["Kiki", "pending"]]) {
      const response = await fetch(`${service.url}/v1/pets`, {
        method: "POST",
        headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
        body: `{"name":"${name}","categoryId":9223372036854775807,"status":"${status}"}`,
      });
      assert.equal(response.status, 201);
    }
  });

  after(async () => {
    await service?.stop();
    dataDir?.remove();
  });

  it("loads offline, lists the operations, shows the deprecation and tries listPets", async () => {
    const { chromium } = await import("playwright-core");
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    });
    try {
      const page = await browser.newPage({ viewport: { width: 1100, height: 1400 } });
      const failures: string[] = [];
      const origins = new Set<string>();
      page.on("requestfailed", (request) => failures.push(`${request.url()} failed`));
      page.on("response", (response) => {
        origins.add(new URL(response.url()).origin);
        if (response.status() >= 400) failures.push(`${response.url()} ${response.status()}`);
      });
      page.on("pageerror", (error) => failures.push(`page error: ${error.message}`));

      await page.goto(`${service.url}/v1/docs`, { waitUntil: "networkidle" });
      await page.waitForSelector("body[data-ready=true]", { timeout: 5000 });

      const ids = await page.$$eval(
        "article.operation",
        (nodes) => nodes.map((node) => node.getAttribute("data-operation-id")),
      );
      assert.deepEqual(ids, ["listPets", "createPet", "getPet"]);
      const getPet = page.locator("#op-getPet");
      assert.match(await getPet.getAttribute("class") ?? "", /deprecated/);
      assert.equal(await getPet.locator(".badge.deprecated").textContent(), "Deprecated");
      assert.equal(
        await getPet.locator(".sunset-date").textContent(),
        "Thu, 05 Dec 2030 00:00:00 GMT",
      );

      await page.fill("#api-key", KEY);
      const listPets = page.locator("#op-listPets");
      await listPets.locator("input[name=limit]").fill("2");
      await listPets.locator("button[data-action=send]").click();
      await listPets.locator(".status-line[data-status='200']").waitFor({ timeout: 5000 });
      const body = await listPets.locator(".response-body").textContent() ?? "";
      assert.match(body, /"Rex"/);
      assert.match(body, /"Tom"/);
      assert.match(body, /9223372036854775807/, "int64 shown with its exact digits");
      assert.match(
        await listPets.locator(".response-headers").textContent() ?? "",
        /link: .*rel="next"/,
      );

      // The 304 path: revalidating with the ETag just received answers 304 with no body.
      const etag = /etag: (".*")/.exec(
        await listPets.locator(".response-headers").textContent() ?? "",
      )?.[1];
      assert.ok(etag !== undefined, "the 200 shows its ETag");
      await listPets.locator("button[data-action=revalidate]").click();
      await listPets.locator(".status-line[data-status='304']").waitFor({ timeout: 5000 });
      assert.equal(await listPets.locator(".response-body").textContent(), "");
      assert.match(await listPets.locator(".not-modified").textContent() ?? "", /Not modified/);
      assert.match(
        await listPets.locator(".response-headers").textContent() ?? "",
        new RegExp(`etag: ${etag.replace(/"/g, '"')}`),
      );
      // Send repeats the request without the condition (the If-None-Match input is empty): a 200.
      await listPets.locator("button[data-action=send]").click();
      await listPets.locator(".status-line[data-status='200']").waitFor({ timeout: 5000 });

      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: join(ARTIFACTS, "docs_page.png") });
      await page.screenshot({ path: join(ARTIFACTS, "docs_page_full.png"), fullPage: true });
      assert.deepEqual(failures, []);
      assert.deepEqual([...origins], [service.url], "every asset comes from the service");
    } finally {
      await browser.close();
    }
  });
});
