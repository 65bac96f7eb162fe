/**
 * Real file system faults for the fault suite: a small tmpfs that fills up (ENOSPC), and an ext4
 * image on a loop device that is shut down mid-write with EXT4_IOC_SHUTDOWN (every later
 * operation fails with EIO, as on a dying disk). Both need root; without it the suite is skipped
 * with a notice, except under `REQUIRE_FAULT_FS=1` (CI), where that fails the run: CI never
 * passes by skipping. Each mount is made in a fresh temporary directory and only that one is
 * unmounted.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";

const TOOLS = ["mount", "umount", "mkfs.ext4", "python3"];

function missing(): string | undefined {
  if (process.getuid?.() !== 0) return "not root";
  const absent = TOOLS.filter((tool) => spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0);
  return absent.length > 0 ? `${absent.join(", ")} missing` : undefined;
}

/** `describe`'s skip option: false to run, or why the suite is skipped. */
export const faultFsSkip: false | string = (() => {
  const why = missing();
  if (why === undefined || process.env.REQUIRE_FAULT_FS === "1") return false;
  return `kernel fault tests skipped (${why}; REQUIRE_FAULT_FS=1 fails them)`;
})();

function run(command: string, args: string[]): void {
  const result = spawnSync(command, args, { encoding: "utf8", timeout: 30_000 });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(" ")} failed: ${result.stderr || result.error}`);
  }
}

/** A mounted file system on a directory of its own. */
export interface FaultMount {
  readonly path: string;
  /** Unmounts (once) and removes what it made. */
  remove(): void;
}

/** A tmpfs of `sizeKiB`, so that a test can fill it. */
export function mountTmpfs(sizeKiB: number): FaultMount {
  const path = mkdtempSync(join(tmpdir(), "animal-store-tmpfs-"));
  run("mount", ["-t", "tmpfs", "-o", `size=${sizeKiB}k,mode=0755`, "tmpfs", path]);
  return mountOf(path, () => {});
}

/** An ext4 file system in an image file of `sizeMiB`, on a loop device. */
export function mountExt4(sizeMiB: number): FaultMount & { remount(): void } {
  const work = mkdtempSync(join(tmpdir(), "animal-store-ext4-"));
  const image = join(work, "disk.img");
  const path = join(work, "mnt");
  run("truncate", ["-s", `${sizeMiB}M`, image]);
  run("mkfs.ext4", ["-q", "-F", image]);
  run("mkdir", [path]);
  run("mount", ["-o", "loop", image, path]);
  const mount = mountOf(path, () => rmSync(work, { recursive: true, force: true }));
  return {
    ...mount,
    /** Unmounts and mounts the image again: a "reboot" that replays the journal. */
    remount() {
      spawnSync("umount", [path]);
      run("mount", ["-o", "loop", image, path]);
    },
  };
}

function mountOf(path: string, cleanUp: () => void): FaultMount {
  let removed = false;
  return {
    path,
    remove() {
      if (removed) return;
      removed = true;
      for (let attempt = 0; attempt < 20; attempt++) {
        if (spawnSync("umount", [path]).status === 0 || !isMounted(path)) break;
        spawnSync("sleep", ["0.1"]);
      }
      cleanUp();
      if (existsSync(path)) rmSync(path, { recursive: true, force: true });
    },
  };
}

function isMounted(path: string): boolean {
  return spawnSync("mountpoint", ["-q", path]).status === 0;
}

/**
 * Shuts the file system of `path` down as a failing disk would: EXT4_IOC_SHUTDOWN with
 * EXT4_GOING_FLAGS_NOLOGFLUSH (what was not yet in the journal is lost; what fsync returned for
 * stays). Node has no ioctl, so python3 makes the call.
 */
export function shutDownFileSystem(path: string): void {
  run("python3", [
    "-c",
    "import fcntl,os,struct,sys\n" +
    "fd=os.open(sys.argv[1],os.O_RDONLY)\n" +
    "fcntl.ioctl(fd,0x8004587d,struct.pack('I',2))",
    path,
  ]);
}
