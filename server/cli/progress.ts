/** A progress bar on standard error: redrawn in place on a terminal, a line per quarter otherwise. */
export function progressBar(stream: NodeJS.WriteStream = process.stderr) {
  let lastLabel = '';
  let lastQuarter = -1;
  let lastDraw = 0;
  return (label: string, done: number, total: number, note = '') => {
    const frac = total ? done / total : 1;
    if (stream.isTTY) {
      const now = Date.now();
      if (now - lastDraw < 100 && done < total) return;
      lastDraw = now;
      const width = 30;
      const full = Math.round(frac * width);
      stream.write(`\r${label} [${'#'.repeat(full)}${'.'.repeat(width - full)}] ${(frac * 100).toFixed(0).padStart(3)}% ${note}   `);
      if (done >= total) stream.write('\n');
      return;
    }
    if (label !== lastLabel) {
      lastLabel = label;
      lastQuarter = -1;
    }
    const quarter = Math.floor(frac * 4);
    if (quarter > lastQuarter) {
      lastQuarter = quarter;
      stream.write(`${label}: ${(frac * 100).toFixed(0)}% ${note}\n`);
    }
  };
}
