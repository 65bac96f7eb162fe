import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { traceIdOf } from "../../src/http/request_id.ts";
import { testApp } from "../support/app.ts";

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const VALID = `00-${TRACE_ID}-00f067aa0ba902b7-01`;

describe("traceIdOf()", () => {
  it("traceIdOf() returns the trace id of a valid version-00 traceparent", () => {
    assert.equal(traceIdOf(VALID), TRACE_ID);
    assert.equal(traceIdOf(`00-${TRACE_ID}-00f067aa0ba902b7-00`), TRACE_ID);
  });

  it("traceIdOf() ignores a missing or invalid traceparent", () => {
    const invalid = [
      null,
      "",
      `01-${TRACE_ID}-00f067aa0ba902b7-01`, // another version
      `ff-${TRACE_ID}-00f067aa0ba902b7-01`,
      `00-${"0".repeat(32)}-00f067aa0ba902b7-01`, // all-zero trace id
      `00-${TRACE_ID}-${"0".repeat(16)}-01`, // all-zero parent id
      `00-${TRACE_ID.toUpperCase()}-00f067aa0ba902b7-01`, // upper-case hex
      `00-${TRACE_ID.slice(1)}-00f067aa0ba902b7-01`, // short trace id
      `00-${TRACE_ID}-00f067aa0ba902b-01`, // short parent id
      `00-${TRACE_ID}-00f067aa0ba902b7-1`, // short flags
      `00-${TRACE_ID}-00f067aa0ba902b7-01-extra`,
      ` ${VALID}`,
      `00_${TRACE_ID}_00f067aa0ba902b7_01`,
      `00-${TRACE_ID.slice(0, 31)}g-00f067aa0ba902b7-01`,
    ];
    for (const value of invalid) assert.equal(traceIdOf(value), undefined, String(value));
  });
});

describe("request log line and traceparent", () => {
  it("a request with a valid traceparent logs its trace id as traceId", async () => {
    const { request, log } = testApp();
    await request("/v1/pets", { headers: { traceparent: VALID } });
    const line = log.lines.at(-1)!;
    assert.equal(line.path, "/v1/pets");
    assert.equal(line.traceId, TRACE_ID);
  });

  it("a request with an invalid or no traceparent logs no traceId", async () => {
    const { request, log } = testApp();
    await request("/healthz", {
      headers: { traceparent: `00-${"0".repeat(32)}-00f067aa0ba902b7-01` },
    });
    await request("/healthz");
    for (const line of log.lines.slice(-2)) {
      assert.equal(line.path, "/healthz");
      assert.equal("traceId" in line, false);
    }
  });
});
