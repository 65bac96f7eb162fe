/** Kept only for scripts/bench, which still imports the line writer from here: remove with it. */
export { petRecordBytes } from "../catalogue/line_format.ts";
