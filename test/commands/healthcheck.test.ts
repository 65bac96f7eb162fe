import assert from "node:assert/strict";
import process from "node:process";
import { describe, it } from "node:test";
import { probeAuthority, runHealthcheck } from "../../src/commands/healthcheck.ts";

/**
 * Runs `runHealthcheck()` with HOST and PORT set and `fetch` replaced by one answering `status`,
 * so no socket is opened; returns the exit code, the URL it called and what it wrote to stderr.
 */
async function probe(
  host: string | undefined,
  status = 200,
): Promise<{ code: number; url: string; stderr: string }> {
  const saved = {
    HOST: process.env.HOST,
    PORT: process.env.PORT,
    fetch: globalThis.fetch,
    write: process.stderr.write,
  };
  const called: string[] = [];
  let stderr = "";
  try {
    if (host === undefined) delete process.env.HOST;
    else process.env.HOST = host;
    process.env.PORT = "8080";
    globalThis.fetch = (input: RequestInfo | URL) => {
      called.push(String(input));
      const body = status === 200 ? { status: "ok" } : { code: "unavailable", status };
      return Promise.resolve(new Response(JSON.stringify(body), { status }));
    };
    process.stderr.write = ((text: string) => {
      stderr += text;
      return true;
    }) as typeof process.stderr.write;
    const code = await runHealthcheck();
    return { code, url: called.join(" "), stderr };
  } finally {
    globalThis.fetch = saved.fetch;
    process.stderr.write = saved.write;
    for (const name of ["HOST", "PORT"] as const) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  }
}

describe("healthcheck", () => {
  it("runHealthcheck() calls the address HOST names, not 127.0.0.1", async () => {
    // A service bound to one address does not answer on loopback: probing 127.0.0.1 would
    // report it dead (or report another process on that port alive).
    const healthy = (url: string) => ({ code: 0, url, stderr: "" });
    assert.deepEqual(await probe("10.0.0.5"), healthy("http://10.0.0.5:8080/healthz"));
    assert.deepEqual(await probe("::1"), healthy("http://[::1]:8080/healthz"));
    assert.deepEqual(await probe("pets.internal"), healthy("http://pets.internal:8080/healthz"));
  });

  it("runHealthcheck() calls 127.0.0.1 when HOST is a wildcard or unset", async () => {
    for (const host of ["0.0.0.0", "::", undefined]) {
      assert.deepEqual(
        await probe(host),
        { code: 0, url: "http://127.0.0.1:8080/healthz", stderr: "" },
        String(host),
      );
    }
  });

  it("runHealthcheck() exits 1 naming the status when /healthz answers 503", async () => {
    const result = await probe("127.0.0.1", 503);
    assert.equal(result.code, 1);
    assert.equal(result.url, "http://127.0.0.1:8080/healthz");
    assert.match(result.stderr, /^Unhealthy: GET \/healthz answered 503\n$/);
  });

  it("probeAuthority() brackets IPv6 literals and keeps other hosts as they are", () => {
    assert.equal(probeAuthority("fd00::5", 80), "[fd00::5]:80");
    assert.equal(probeAuthority("192.0.2.7", 80), "192.0.2.7:80");
    assert.equal(probeAuthority("", 80), "127.0.0.1:80");
  });
});
