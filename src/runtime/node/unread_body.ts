/**
 * The part of a request body the app did not read (it answered 401 or 413 early). Closing a
 * socket while request data still arrives makes the kernel send a reset, which can reach the
 * client before it read the answer (RFC 9112 §9.6). So, as nginx's lingering close, the rest is
 * read and dropped, and the connection closes once it has all arrived or the client has gone, at
 * the latest `LINGER_MS` after the answer; past `DISCARD_MAX_BYTES` reading stops (TCP flow
 * control holds the client). Before that, a small body gets a moment to arrive whole
 * (`awaitSmallBody`), so the connection can carry the next request.
 */
import type { IncomingMessage } from "node:http";

/** At most this much of an unread body is read and dropped (a fast client sends it in ms). */
const DISCARD_MAX_BYTES = 4 * 1024 * 1024;
/** Time for a client that is still sending to have read the answer before a reset. */
const LINGER_MS = 2_000;

/** A body announced this small (or chunked, up to this much) gets a moment to arrive whole. */
const SMALL_BODY_BYTES = 16 * 1024;
/** How long a small body may take to arrive before the answer goes out with `Connection: close`. */
const SMALL_BODY_WAIT_MS = 50;

/**
 * Reads and drops the rest of `incoming`'s body if it is small (`SMALL_BODY_BYTES`); resolves
 * true once it has all arrived, false at once for a larger one, and false when it has not
 * arrived within `SMALL_BODY_WAIT_MS`, grew past the bound, or the client went away (the rest
 * is then `discardUnreadBody`'s). Never rejects.
 */
export function awaitSmallBody(incoming: IncomingMessage): Promise<boolean> {
  if (incoming.complete) return Promise.resolve(true);
  const announced = incoming.headers["content-length"];
  if (incoming.destroyed || (announced !== undefined && Number(announced) > SMALL_BODY_BYTES)) {
    return Promise.resolve(false);
  }
  return new Promise((resolve) => {
    let dropped = 0;
    const finish = (arrived: boolean) => {
      clearTimeout(timer);
      incoming.off("data", onData);
      incoming.off("end", onEnd);
      incoming.off("close", onClose);
      resolve(arrived);
    };
    const onData = (chunk: Uint8Array) => {
      dropped += chunk.byteLength;
      if (dropped > SMALL_BODY_BYTES) finish(false);
    };
    const onEnd = () => finish(true);
    const onClose = () => finish(incoming.complete);
    const timer = setTimeout(() => finish(false), SMALL_BODY_WAIT_MS);
    incoming.on("data", onData);
    incoming.on("end", onEnd);
    incoming.on("close", onClose);
    incoming.resume();
  });
}

/**
 * Reads and drops what is left of `incoming`'s body; resolves once it has all arrived, the
 * client went away (noticed only while reading), or `LINGER_MS` have passed. Never rejects.
 */
export function discardUnreadBody(incoming: IncomingMessage): Promise<void> {
  if (incoming.complete || incoming.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let discarded = 0;
    const onData = (chunk: Uint8Array) => {
      discarded += chunk.byteLength;
      if (discarded <= DISCARD_MAX_BYTES) return;
      // Enough: stop reading, but do not close before the client has had time to read the answer.
      incoming.off("data", onData);
      incoming.pause();
    };
    const done = () => {
      clearTimeout(timer);
      incoming.off("data", onData);
      incoming.off("end", done);
      incoming.off("close", done);
      resolve();
    };
    const timer = setTimeout(done, LINGER_MS);
    incoming.on("data", onData);
    incoming.on("end", done);
    // A client that goes away (or a server timeout) destroys `incoming`, which then closes.
    incoming.on("close", done);
    incoming.resume();
  });
}
