import cliProgress from "cli-progress";

/** Where the runner's live lines go: straight to stdout, or above a progress bar when stdout is a terminal. */
export interface ProgressOutput {
  /** Prints one line (no trailing newline needed). */
  line(text: string): void;
  /** The sweep knows how many cells it will run: the bar appears (TTY only). */
  start(total: number): void;
  /** One more cell finished. */
  advance(): void;
  /** Removes the bar so the closing summary prints below it. Idempotent. */
  stop(): void;
}

/** A progress bar (cli-progress) on a TTY stream; elsewhere plain lines, so logs and pipes stay line-oriented. */
export function createProgressOutput(stream: NodeJS.WriteStream): ProgressOutput {
  if (stream.isTTY !== true) {
    return { line: (text) => void stream.write(`${text}\n`), start: () => undefined, advance: () => undefined, stop: () => undefined };
  }
  const multibar = new cliProgress.MultiBar({ stream, format: "wfbench {bar} {value}/{total} cells | {duration_formatted}", hideCursor: true, clearOnComplete: false, stopOnComplete: false }, cliProgress.Presets.shades_classic);
  let bar: cliProgress.SingleBar | null = null;
  let stopped = false;
  return {
    line: (text) => (stopped || bar === null ? void stream.write(`${text}\n`) : multibar.log(`${text}\n`)),
    start: (total) => {
      if (!stopped && bar === null) bar = multibar.create(total, 0);
    },
    advance: () => bar?.increment(),
    stop: () => {
      if (stopped) return;
      stopped = true;
      // log() only buffers until the next redraw: draw once more so no line is lost, then leave the final bar.
      if (bar !== null) multibar.update();
      multibar.stop();
    },
  };
}
