/**
 * Talking HTTP/2 to a service over TLS frame by frame, for what node:http2 cannot do: send a
 * body as DATA frames of a size the test picks (node:http2 coalesces small writes into frames of
 * its own choosing, so it never sends one-byte frames). Enough of RFC 9113 for one request on
 * one connection: the preface, SETTINGS and their ACK, PING answered, flow control respected
 * (DATA only within the connection's and the stream's windows), the answer's HEADERS and DATA
 * read until END_STREAM. Request headers are written as HPACK literals without indexing and
 * without Huffman coding; of the answer's header block only `:status` is decoded.
 */
import { Buffer } from "node:buffer";
import { connect, type TLSSocket } from "node:tls";

/** What the tests connect with: the port on 127.0.0.1 and the certificates trusted there. */
export interface TlsTarget {
  readonly port: number;
  /** The only certificates trusted; the server's must name `localhost`. */
  readonly ca: string[];
}

/** Opens a TLS connection offering `protocols` by ALPN. */
function connectTls(target: TlsTarget, protocols: string[]): TLSSocket {
  return connect({
    host: "127.0.0.1",
    port: target.port,
    servername: "localhost",
    ca: target.ca,
    ALPNProtocols: protocols,
  });
}

/**
 * The protocol the server picks when offered `h2` and `http/1.1` by ALPN, or `none` when it picks
 * none (it then speaks HTTP/1.1 to anyone, having never looked at the offer).
 */
export function negotiatedProtocol(target: TlsTarget): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connectTls(target, ["h2", "http/1.1"]);
    socket.once("secureConnect", () => {
      resolve(socket.alpnProtocol || "none");
      socket.destroy();
    });
    socket.once("error", reject);
  });
}

/** An HTTP/2 answer: its status and its body as text. */
export interface Http2Response {
  readonly status: number;
  readonly body: string;
}

/** A request sent by `http2Exchange`. */
export interface Http2Request {
  readonly method: string;
  readonly path: string;
  /** Regular header fields, names in lower case (`:scheme`, `:authority` are added). */
  readonly headers: Record<string, string>;
  readonly body: Uint8Array;
  /** The payload of each DATA frame (the last may be shorter): 1 sends the body a byte a frame. */
  readonly dataFrameBytes: number;
  /** How long the whole exchange may take. */
  readonly timeoutMs?: number;
}

const CLIENT_PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "latin1");

/** Frame types (RFC 9113 §6). */
const DATA = 0x0;
const HEADERS = 0x1;
const RST_STREAM = 0x3;
const SETTINGS = 0x4;
const PING = 0x6;
const GOAWAY = 0x7;
const WINDOW_UPDATE = 0x8;
const CONTINUATION = 0x9;

/** Frame flags. */
const END_STREAM = 0x1;
const ACK = 0x1;
const END_HEADERS = 0x4;
const PADDED = 0x8;
const PRIORITY = 0x20;

const SETTINGS_ENABLE_PUSH = 0x2;
const SETTINGS_INITIAL_WINDOW_SIZE = 0x4;
/** Every window starts at this size until SETTINGS or WINDOW_UPDATE change it (§6.9.2). */
const DEFAULT_WINDOW = 65_535;
const FRAME_HEADER_BYTES = 9;
/** The one stream this client opens. */
const STREAM = 1;

/** One frame: the 9-byte header (length, type, flags, stream id) and the payload. */
function frame(type: number, flags: number, streamId: number, payload: Uint8Array): Buffer {
  const bytes = Buffer.alloc(FRAME_HEADER_BYTES + payload.byteLength);
  bytes.writeUIntBE(payload.byteLength, 0, 3);
  bytes[3] = type;
  bytes[4] = flags;
  bytes.writeUInt32BE(streamId, 5);
  bytes.set(payload, FRAME_HEADER_BYTES);
  return bytes;
}

/**
 * Sends `request` on a fresh TLS connection that offers only `h2`, its body as DATA frames of
 * `dataFrameBytes` each, and resolves with the answer once its stream ends. Fails on a
 * connection that negotiates anything else, a reset stream, a GOAWAY before the answer, a close,
 * or `timeoutMs`.
 */
export function http2Exchange(target: TlsTarget, request: Http2Request): Promise<Http2Response> {
  return new Promise((resolve, reject) => {
    const socket = connectTls(target, ["h2"]);
    const fail = (error: Error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(error);
    };
    const timer = setTimeout(
      () => fail(new Error(`no HTTP/2 answer within ${request.timeoutMs ?? 30_000} ms`)),
      request.timeoutMs ?? 30_000,
    );
    socket.on("error", fail);
    socket.once(
      "close",
      () => fail(new Error("the server closed the connection before answering")),
    );

    let received = Buffer.alloc(0);
    let settingsSeen = false;
    let connectionWindow = DEFAULT_WINDOW;
    let streamWindow = DEFAULT_WINDOW;
    let initialStreamWindow = DEFAULT_WINDOW;
    /** Body bytes flow control lets this client send so far; `sent` of them are on their way. */
    let allowed = 0;
    let sent = 0;
    let writing = false;
    let headerBlock = Buffer.alloc(0);
    let status: number | undefined;
    const bodyChunks: Buffer[] = [];

    // DATA frames leave one write at a time, each once the previous one is handed to the kernel,
    // so the service reads them as they come, as from a client that trickles its body. Frames
    // sent in one burst arrive together and hid the cost this client exists to show: with the
    // body reader of 1.1.0 on Deno, 60,000 one-byte frames in one write cost 20 MiB, the same
    // frames written one at a time 2,780 MiB.
    const writeNext = () => {
      writing = sent < allowed && !socket.destroyed;
      if (!writing) return;
      const end = Math.min(sent + request.dataFrameBytes, allowed);
      const flags = end === request.body.byteLength ? END_STREAM : 0;
      const data = frame(DATA, flags, STREAM, request.body.subarray(sent, end));
      sent = end;
      socket.write(data, writeNext);
    };

    /** Sends as much of the body as both windows allow. */
    const sendData = () => {
      const room = Math.min(connectionWindow, streamWindow, request.body.byteLength - allowed);
      if (room <= 0) return;
      allowed += room;
      // Flow control counts payload only, not the 9 bytes of each frame's header.
      connectionWindow -= room;
      streamWindow -= room;
      if (!writing) writeNext();
    };

    /** The HEADERS frame, sent once the server's first SETTINGS gave the stream's window. */
    const sendHeaders = () => {
      const fields: [string, string][] = [
        [":method", request.method],
        [":scheme", "https"],
        [":path", request.path],
        [":authority", "localhost"],
        ...Object.entries(request.headers),
      ];
      const block = Buffer.concat(fields.map(([name, value]) => literalField(name, value)));
      const empty = request.body.byteLength === 0;
      socket.write(frame(HEADERS, END_HEADERS | (empty ? END_STREAM : 0), STREAM, block));
      sendData();
    };

    const finish = () => {
      clearTimeout(timer);
      socket.removeAllListeners("close");
      socket.destroy();
      if (status === undefined) reject(new Error("the stream ended without a :status"));
      else resolve({ status, body: Buffer.concat(bodyChunks).toString("utf8") });
    };

    const onFrame = (type: number, flags: number, streamId: number, payload: Buffer) => {
      switch (type) {
        case SETTINGS:
          if (flags & ACK) return;
          for (let at = 0; at + 6 <= payload.byteLength; at += 6) {
            if (payload.readUInt16BE(at) !== SETTINGS_INITIAL_WINDOW_SIZE) continue;
            const size = payload.readUInt32BE(at + 2);
            streamWindow += size - initialStreamWindow; // §6.9.2: open streams follow the change
            initialStreamWindow = size;
          }
          socket.write(frame(SETTINGS, ACK, 0, new Uint8Array(0)));
          if (!settingsSeen) {
            settingsSeen = true;
            sendHeaders();
          } else sendData();
          return;
        case WINDOW_UPDATE: {
          const increment = payload.readUInt32BE(0) & 0x7fff_ffff;
          if (streamId === 0) connectionWindow += increment;
          else if (streamId === STREAM) streamWindow += increment;
          if (settingsSeen) sendData();
          return;
        }
        case PING:
          if (!(flags & ACK)) socket.write(frame(PING, ACK, 0, payload));
          return;
        case GOAWAY: {
          // A graceful GOAWAY that still takes in this stream lets its answer come.
          const lastStream = payload.readUInt32BE(0) & 0x7fff_ffff;
          const code = payload.readUInt32BE(4);
          if (lastStream >= STREAM && code === 0) return;
          return fail(
            new Error(`GOAWAY with error code ${code}: ${payload.subarray(8).toString("utf8")}`),
          );
        }
        case RST_STREAM:
          if (streamId === STREAM) {
            fail(new Error(`the stream was reset with error code ${payload.readUInt32BE(0)}`));
          }
          return;
        case HEADERS:
        case CONTINUATION: {
          if (streamId !== STREAM) return;
          let fragment = type === HEADERS ? withoutPadding(flags, payload) : payload;
          if (type === HEADERS && flags & PRIORITY) fragment = fragment.subarray(5);
          headerBlock = Buffer.concat([headerBlock, fragment]);
          // Only the first block holds :status; a second one would be trailers.
          if (flags & END_HEADERS && status === undefined) status = decodeStatus(headerBlock);
          if (type === HEADERS && flags & END_STREAM) finish();
          return;
        }
        case DATA:
          if (streamId !== STREAM) return;
          // The answers here are small: well within the window this client gave, so no
          // WINDOW_UPDATE is needed for them.
          bodyChunks.push(withoutPadding(flags, payload));
          if (flags & END_STREAM) finish();
          return;
      }
    };

    socket.once("secureConnect", () => {
      if (socket.alpnProtocol !== "h2") {
        return fail(new Error(`the server negotiated ${socket.alpnProtocol || "no protocol"}`));
      }
      const noPush = Buffer.alloc(6);
      noPush.writeUInt16BE(SETTINGS_ENABLE_PUSH, 0);
      noPush.writeUInt32BE(0, 2);
      socket.write(Buffer.concat([CLIENT_PREFACE, frame(SETTINGS, 0, 0, noPush)]));
    });
    socket.on("data", (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      while (received.byteLength >= FRAME_HEADER_BYTES) {
        const length = received.readUIntBE(0, 3);
        if (received.byteLength < FRAME_HEADER_BYTES + length) break;
        const payload = received.subarray(FRAME_HEADER_BYTES, FRAME_HEADER_BYTES + length);
        const streamId = received.readUInt32BE(5) & 0x7fff_ffff;
        const [type, flags] = [received[3], received[4]];
        received = received.subarray(FRAME_HEADER_BYTES + length);
        try {
          onFrame(type, flags, streamId, payload);
        } catch (error) {
          return fail(error as Error); // a header block this client cannot read
        }
      }
    });
  });
}

/** A payload without the padding a PADDED frame carries (its first byte is the pad length). */
function withoutPadding(flags: number, payload: Buffer): Buffer {
  if (!(flags & PADDED)) return payload;
  return payload.subarray(1, payload.byteLength - payload[0]);
}

/**
 * An HPACK integer with an `prefixBits`-bit prefix, the first byte's higher bits set to
 * `pattern` (RFC 7541 §5.1).
 */
function hpackInteger(value: number, prefixBits: number, pattern: number): number[] {
  const max = (1 << prefixBits) - 1;
  if (value < max) return [pattern | value];
  const bytes = [pattern | max];
  for (value -= max; value >= 128; value >>= 7) bytes.push((value & 0x7f) | 0x80);
  bytes.push(value);
  return bytes;
}

/** A string literal without Huffman coding: its length (H bit clear), then its octets. */
function hpackString(text: string): Buffer {
  const octets = Buffer.from(text, "latin1");
  return Buffer.concat([Buffer.from(hpackInteger(octets.byteLength, 7, 0)), octets]);
}

/** A literal header field without indexing, its name a literal too (RFC 7541 §6.2.2). */
function literalField(name: string, value: string): Buffer {
  return Buffer.concat([Buffer.from([0x00]), hpackString(name), hpackString(value)]);
}

/** HPACK's static table entries that are `:status` (RFC 7541 Appendix A), by index. */
const STATIC_STATUS: Record<number, string> = {
  8: "200",
  9: "204",
  10: "206",
  11: "304",
  12: "400",
  13: "404",
  14: "500",
};

/**
 * The `:status` of a response's header block: its first field, since pseudo-header fields come
 * first (RFC 9113 §8.3), after any dynamic table size update. Decodes the static table's
 * entries and literals whose name is `:status` (indexed or literal, value Huffman-coded or not);
 * a field that refers to the dynamic table cannot occur on the first answer of a connection.
 */
export function decodeStatus(block: Uint8Array): number {
  const reader = new HpackReader(block);
  for (;;) {
    const first = reader.peek();
    if (first & 0x80) { // indexed field
      const value = STATIC_STATUS[reader.integer(7)];
      if (value === undefined) throw new Error("the first header field is not :status");
      return Number(value);
    }
    if ((first & 0xe0) === 0x20) { // dynamic table size update
      reader.integer(5);
      continue;
    }
    // A literal, with incremental indexing (6-bit index) or without / never indexed (4-bit).
    const index = reader.integer(first & 0x40 ? 6 : 4);
    const name = index === 0
      ? reader.string()
      : STATIC_STATUS[index] !== undefined
      ? ":status"
      : undefined;
    if (name !== ":status") throw new Error("the first header field is not :status");
    const value = reader.string();
    if (!/^[0-9]{3}$/.test(value)) throw new Error(`:status is not three digits: ${value}`);
    return Number(value);
  }
}

/** Reads HPACK integers and string literals off a header block. */
class HpackReader {
  #at = 0;
  constructor(private readonly block: Uint8Array) {}

  peek(): number {
    if (this.#at >= this.block.byteLength) throw new Error("the header block ended early");
    return this.block[this.#at];
  }

  integer(prefixBits: number): number {
    const max = (1 << prefixBits) - 1;
    let value = this.peek() & max;
    this.#at++;
    if (value < max) return value;
    for (let shift = 0;; shift += 7) {
      const byte = this.peek();
      this.#at++;
      value += (byte & 0x7f) * 2 ** shift;
      if (!(byte & 0x80)) return value;
    }
  }

  /** A string literal; a Huffman-coded one only when it is digits (all `:status` needs). */
  string(): string {
    const huffman = (this.peek() & 0x80) !== 0;
    const length = this.integer(7);
    const octets = this.block.subarray(this.#at, this.#at + length);
    if (octets.byteLength < length) throw new Error("the header block ended early");
    this.#at += length;
    return huffman ? huffmanDigits(octets) : Buffer.from(octets).toString("latin1");
  }
}

/**
 * Decodes a Huffman-coded string of digits (a `:status` value; RFC 7541 Appendix B): `0`–`2`
 * are the 5-bit codes 0–2, `3`–`9` the 6-bit codes 0x19–0x1f, and the last byte is padded with
 * ones. Any other symbol is refused, since a status holds none.
 */
function huffmanDigits(octets: Uint8Array): string {
  const totalBits = octets.byteLength * 8;
  const bitsAt = (at: number, count: number) => {
    let value = 0;
    for (let bit = at; bit < at + count; bit++) {
      const set = bit < totalBits ? (octets[bit >> 3] >> (7 - (bit & 7))) & 1 : 1;
      value = (value << 1) | set;
    }
    return value;
  };
  let digits = "";
  for (let at = 0; at < totalBits;) {
    const rest = totalBits - at;
    if (rest < 8 && bitsAt(at, rest) === (1 << rest) - 1) break; // the padding
    const five = bitsAt(at, 5);
    if (five <= 2) {
      digits += String(five);
      at += 5;
      continue;
    }
    const six = bitsAt(at, 6);
    if (six < 0x19 || six > 0x1f) throw new Error("the Huffman-coded :status has a non-digit");
    digits += String(six - 0x19 + 3);
    at += 6;
  }
  return digits;
}
