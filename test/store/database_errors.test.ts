/**
 * How the PostgreSQL store reads a failure: the server's answer, a lost connection, or one that may
 * pass by itself. Errors as node-postgres makes them, no server needed.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import pg from "pg";
import {
  answeredByServer,
  isConnectionLost,
  isTransientDatabaseError,
} from "../../src/store/postgres/database.ts";

/** An error the server sent, as node-postgres's protocol parser makes it. */
function serverError(code: string): Error {
  const error = new pg.DatabaseError("from the server", 1, "error");
  error.code = code;
  return error;
}

/** A socket's error, as Node's net module makes it. */
function socketError(code: string): Error {
  return Object.assign(new Error(`write ${code}`), { code, errno: -32, syscall: "write" });
}

describe("a PostgreSQL failure", () => {
  it("is the server's answer only when the server sent it: a broken pipe during COMMIT is not", () => {
    assert.equal(answeredByServer(serverError("23505")), true);
    assert.equal(answeredByServer(serverError("57P01")), true);
    for (const code of ["EPIPE", "EBADF", "ECONNRESET"]) {
      assert.equal(answeredByServer(socketError(code)), false, code);
    }
    assert.equal(answeredByServer(new Error("Connection terminated unexpectedly")), false);
  });

  it("counts a closed connection, a server shutting down and a read-only host as lost", () => {
    for (const error of [serverError("08006"), serverError("57P01"), serverError("25006")]) {
      assert.equal(isConnectionLost(error), true, (error as { code?: string }).code);
    }
    assert.equal(isConnectionLost(new Error("Connection terminated unexpectedly")), true);
    assert.equal(isConnectionLost(serverError("23505")), false);
  });

  it("lets serialization failures and a lack of resources pass by themselves, not a violation", () => {
    assert.equal(isTransientDatabaseError(serverError("40001")), true);
    assert.equal(isTransientDatabaseError(serverError("53300")), true);
    assert.equal(isTransientDatabaseError(serverError("23505")), false);
    assert.equal(isTransientDatabaseError(serverError("42501")), false);
  });
});
