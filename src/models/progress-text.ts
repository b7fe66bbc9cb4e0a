/**
 * Download progress as people read it, shared by `npm run model` and the console (so this
 * file stays free of Node APIs).
 */

/** `812 B`, `3.4 MB`, `1.0 GB` */
export function formatBytes(bytes: number): string {
  const units = ["B", "KB", "MB", "GB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(unit === 0 ? 0 : 1)} ${units[unit]}`;
}

/** `m:ss`, rounded up: an ETA never claims to be done early. */
export function formatDuration(seconds: number): string {
  const whole = Math.ceil(seconds);
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
}
