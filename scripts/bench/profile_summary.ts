/**
 * Summary of a V8 `.cpuprofile` (written by `--cpu-prof` on Node, Deno and Bun): self time per
 * function and per source file, largest first. For an esbuild bundle, a bundle line is mapped
 * back to its source file through the `// src/...` markers esbuild writes before each module.
 *
 *   node bench.mjs --summarize=FILE.cpuprofile   (also run by `--profile`)
 */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  hitCount?: number;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples?: number[];
  timeDeltas?: number[];
  startTime: number;
  endTime: number;
}

/** One row of the summary. */
export interface SelfTime {
  readonly name: string;
  readonly where: string;
  readonly ms: number;
  readonly percent: number;
}

/** Bundle line (0-based) → the source module esbuild placed there. */
function bundleModules(url: string): ((line: number) => string) | undefined {
  let path = url;
  try {
    if (url.startsWith("file://")) path = fileURLToPath(url);
  } catch {
    return undefined;
  }
  if (!path.endsWith(".mjs") || !existsSync(path)) return undefined;
  const starts: { line: number; module: string }[] = [];
  readFileSync(path, "utf8").split("\n").forEach((text, line) => {
    const marker = /^\/\/ ((?:src|scripts|test|node_modules)\/\S+)$/.exec(text);
    if (marker !== null) starts.push({ line, module: marker[1] });
  });
  return (line) => {
    let module = "bundle";
    for (const start of starts) {
      if (start.line > line) break;
      module = start.module;
    }
    return module;
  };
}

function shortUrl(url: string): string {
  const at = url.search(/\/(src|scripts|node_modules|ext|node:|test)\//);
  return at === -1 ? url.replace(/^file:\/\//, "") : url.slice(at + 1);
}

/** Self time per function and per file of the profile at `path`. */
export function summarizeProfile(path: string): {
  totalMs: number;
  functions: SelfTime[];
  files: SelfTime[];
} {
  const profile = JSON.parse(readFileSync(path, "utf8")) as CpuProfile;
  const selfUs = new Map<number, number>();
  if (profile.samples !== undefined && profile.timeDeltas !== undefined) {
    // Each sample's time is the delta to the next sample.
    for (let i = 0; i < profile.samples.length; i++) {
      const delta = profile.timeDeltas[i + 1] ?? 0;
      selfUs.set(profile.samples[i], (selfUs.get(profile.samples[i]) ?? 0) + Math.max(delta, 0));
    }
  } else {
    const interval = (profile.endTime - profile.startTime) /
      Math.max(1, profile.nodes.reduce((sum, node) => sum + (node.hitCount ?? 0), 0));
    for (const node of profile.nodes) selfUs.set(node.id, (node.hitCount ?? 0) * interval);
  }
  const mappers = new Map<string, ((line: number) => string) | undefined>();
  const byFunction = new Map<string, { name: string; where: string; us: number }>();
  const byFile = new Map<string, number>();
  let totalUs = 0;
  for (const node of profile.nodes) {
    const us = selfUs.get(node.id) ?? 0;
    if (us === 0) continue;
    totalUs += us;
    const { functionName, url, lineNumber } = node.callFrame;
    if (!mappers.has(url)) mappers.set(url, bundleModules(url));
    const mapper = mappers.get(url);
    const file = url === "" ? "(native/vm)" : mapper ? mapper(lineNumber) : shortUrl(url);
    // A bundle line says nothing about the source line: name the module and the bundle line.
    const where = url === ""
      ? ""
      : mapper
      ? `${file}, bundle line ${lineNumber + 1}`
      : `${file}:${lineNumber + 1}`;
    const name = functionName || "(anonymous)";
    const key = `${name} ${where}`;
    const entry = byFunction.get(key) ?? { name, where, us: 0 };
    entry.us += us;
    byFunction.set(key, entry);
    byFile.set(file, (byFile.get(file) ?? 0) + us);
  }
  const toRow = (name: string, where: string, us: number): SelfTime => ({
    name,
    where,
    ms: us / 1000,
    percent: (100 * us) / Math.max(totalUs, 1),
  });
  return {
    totalMs: totalUs / 1000,
    functions: [...byFunction.values()].sort((a, b) => b.us - a.us)
      .map((entry) => toRow(entry.name, entry.where, entry.us)),
    files: [...byFile.entries()].sort((a, b) => b[1] - a[1])
      .map(([file, us]) => toRow(file, "", us)),
  };
}

/** Prints the `top` functions and files of a profile. */
export function printProfileSummary(path: string, top = 25): void {
  const summary = summarizeProfile(path);
  console.log(`  profile ${path} (${(summary.totalMs / 1000).toFixed(1)} s sampled)`);
  console.log("  self %   self ms  function  (file:line)");
  for (const row of summary.functions.slice(0, top)) {
    console.log(
      `  ${row.percent.toFixed(1).padStart(5)}  ${row.ms.toFixed(0).padStart(8)}  ${row.name}  ${
        row.where === "" ? "" : `(${row.where})`
      }`,
    );
  }
  console.log("  self % by file:");
  for (const row of summary.files.slice(0, 15)) {
    console.log(`  ${row.percent.toFixed(1).padStart(5)}  ${row.name}`);
  }
}
