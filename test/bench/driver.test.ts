/**
 * Pieces of the benchmark (`scripts/bench/`): the large create's body, the count of answers
 * that close their connection (how a runtime that drops keep-alive after a large body shows in
 * the tables), and the driver's options.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import process from "node:process";
import { after, describe, it } from "node:test";
import { runWrk, wrkScript } from "../../scripts/bench/machine.ts";
import { isNewPet, LARGE_BODY, SMALL_BODY } from "../../scripts/bench/peers/fixture.ts";
import { removeTempDirs, tempDir } from "../store/helpers.ts";

const hasWrk = spawnSync("wrk", ["--version"]).error === undefined;

describe("the bench's create bodies", () => {
  it("the large create is 1,500 bytes, a NewPet named by 200 non-ASCII characters", () => {
    assert.equal(Buffer.byteLength(LARGE_BODY), 1500);
    const pet = JSON.parse(LARGE_BODY);
    assert.equal([...pet.name].length, 200);
    assert.ok([...pet.name].every((character) => character.codePointAt(0)! > 0x7f));
    assert.ok(isNewPet(pet), "the peers accept it as they accept the small one");
    assert.ok(isNewPet(JSON.parse(SMALL_BODY)));
    assert.ok(Buffer.byteLength(SMALL_BODY) < 450, "the small one stays small");
  });
});

describe("runWrk()", { skip: !hasWrk && "wrk is not installed" }, () => {
  after(() => removeTempDirs());

  it("runWrk() counts the answers that carried Connection: close, each a new connection", async () => {
    // Answers to /close end their connection, as a runtime that drops keep-alive does.
    const server = createServer((request, response) => {
      request.resume();
      request.on("end", () => {
        if (request.url === "/close") response.setHeader("connection", "close");
        response.writeHead(201, { "content-type": "application/json" }).end("{}");
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const dir = tempDir();
      const bodyFile = join(dir, "body.json");
      writeFileSync(bodyFile, LARGE_BODY);
      const script = join(dir, "post.lua");
      const headers = { "Content-Type": "application/json" };
      writeFileSync(script, wrkScript({ method: "POST", headers, bodyFile, countCloses: true }));
      const port = (server.address() as AddressInfo).port;
      const run = (path: string) => runWrk({ port, path, script, seconds: 1, connections: 4 });
      const closing = await run("/close");
      assert.ok(closing.requests > 0, "wrk made requests");
      assert.ok(
        closing.closed >= closing.requests - 4,
        `${closing.closed} of ${closing.requests} answers counted as closing`,
      );
      const keptAlive = await run("/keep");
      assert.ok(keptAlive.requests > 0);
      assert.equal(keptAlive.closed, 0);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe("the bench driver", () => {
  const driver = (...args: string[]) => {
    const runtime = "Deno" in globalThis ? ["run", "-A"] : [];
    return spawnSync(process.execPath, [...runtime, "scripts/bench/bench.ts", ...args], {
      encoding: "utf8",
      timeout: 60_000,
    });
  };

  it("the bench driver lists its options with --help and refuses one it does not know", () => {
    const help = driver("--help");
    assert.equal(help.status, 0, help.stderr);
    for (const option of ["--postgres", "--revisions=", "--endpoints=", "large-create"]) {
      assert.ok(help.stdout.includes(option), `--help names ${option}`);
    }
    const unknown = driver("--rounds=1", "--fast");
    assert.equal(unknown.status, 2);
    assert.match(unknown.stdout, /Unknown option --fast/);
  });
});
