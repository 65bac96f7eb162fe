/**
 * The kernel's view of loopback TCP connections (Linux `/proc/net/tcp*`), so a test can wait for
 * an event instead of sleeping: "the service has read everything sent to it on this port".
 */
import { readFileSync } from "node:fs";

interface Connection {
  readonly localPort: number;
  readonly remotePort: number;
  readonly established: boolean;
  readonly sendQueue: number;
  readonly receiveQueue: number;
}

function connections(): Connection[] {
  const result: Connection[] = [];
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = readFileSync(table, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 5) continue;
      const [, local, remote, state, queues] = fields;
      const [sendQueue, receiveQueue] = queues.split(":").map((hex) => parseInt(hex, 16));
      result.push({
        localPort: parseInt(local.split(":").at(-1)!, 16),
        remotePort: parseInt(remote.split(":").at(-1)!, 16),
        established: state === "01",
        sendQueue,
        receiveQueue,
      });
    }
  }
  return result;
}

/** True when this system shows its TCP connections (Linux). */
export function canSeeTcpQueues(): boolean {
  try {
    readFileSync("/proc/net/tcp", "utf8");
    return true;
  } catch {
    return false;
  }
}

/**
 * True when a connection to `port` is open and the server has read every byte sent to it: the
 * client's side has nothing unacknowledged and the server's side nothing unread.
 */
export function serverHasReadAll(port: number): boolean {
  const all = connections().filter((connection) => connection.established);
  const serverSide = all.filter((connection) => connection.localPort === port);
  const clientSide = all.filter((connection) => connection.remotePort === port);
  return serverSide.length > 0 && clientSide.length > 0 &&
    serverSide.every((connection) => connection.receiveQueue === 0) &&
    clientSide.every((connection) => connection.sendQueue === 0);
}
