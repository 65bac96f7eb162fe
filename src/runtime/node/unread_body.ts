/**
 * The part of a request body the app did not read (it answered 401 or 413 early). Closing a
 * socket while data still arrives makes the kernel send a reset, which can reach the client before
 * it read the answer (RFC 9112 §9.6). So, as nginx's lingering close, the rest is read and dropped
 * until it has all arrived, the client has gone, or `LINGER_MS` passed; past `DISCARD_MAX_BYTES`
 * reading stops (TCP flow control holds the client).
 */
import type { IncomingMessage } from "node:http";

const DISCARD_MAX_BYTES = 4 * 1024 * 1024;
const LINGER_MS = 2_000;
/** A body announced this small (or chunked, up to this much) gets a moment to arrive whole. */
const SMALL_BODY_BYTES = 16 * 1024;
const SMALL_BODY_WAIT_MS = 50;

/**
 * Drops the rest of a small body so the connection can carry the next request: true once it all
 * arrived; false for a larger one, if it came too slowly or the client went. Never rejects.
 */
export function awaitSmallBody(incoming: IncomingMessage): Promise<boolean> {
  if (incoming.complete) return Promise.resolve(true);
  const announced = incoming.headers["content-length"];
  if (incoming.destroyed || (announced !== undefined && Number(announced) > SMALL_BODY_BYTES)) {
    return Promise.resolve(false);
  }
  return dropRest(incoming, SMALL_BODY_BYTES, SMALL_BODY_WAIT_MS, true);
}

/** Drops the rest of the body; resolves when the lingering close may close. Never rejects. */
export function discardUnreadBody(incoming: IncomingMessage): Promise<unknown> {
  if (incoming.complete || incoming.destroyed) return Promise.resolve();
  return dropRest(incoming, DISCARD_MAX_BYTES, LINGER_MS, false);
}

/**
 * Drops `incoming`'s data; resolves whether it all arrived, at its end, its close (client gone,
 * server timeout) or `waitMs`. Past `maxBytes` it gives up, or stops reading but still waits.
 */
function dropRest(
  incoming: IncomingMessage,
  maxBytes: number,
  waitMs: number,
  giveUp: boolean,
): Promise<boolean> {
  return new Promise((resolve) => {
    let dropped = 0;
    const finish = (arrived: boolean) => {
      clearTimeout(timer);
      incoming.off("data", onData).off("end", onEnd).off("close", onClose);
      resolve(arrived);
    };
    const onData = (chunk: Uint8Array) => {
      dropped += chunk.byteLength;
      if (dropped <= maxBytes) return;
      if (giveUp) return finish(false);
      incoming.off("data", onData);
      incoming.pause();
    };
    const onEnd = () => finish(true);
    const onClose = () => finish(incoming.complete);
    const timer = setTimeout(() => finish(false), waitMs);
    incoming.on("data", onData).on("end", onEnd).on("close", onClose);
    incoming.resume();
  });
}
