/**
 * A byte count as a refusal sentence writes it: exact below 100 KiB unless it is a whole number of
 * KiB (`5000 bytes`, `4 KiB`, `16 MiB`), else one decimal (`1.5 MiB`). Limits are usually powers of
 * two and read as such; a measured size stays exact while the difference matters.
 */
export function formatBytes(n: number): string {
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = n;
  let unit = -1;
  while (value >= 1024 && value % 1024 === 0 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  if (unit >= 0) return `${value} ${units[unit]}`;
  if (n < 100 * 1024) return `${n} bytes`;
  value = n / 1024;
  unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}
