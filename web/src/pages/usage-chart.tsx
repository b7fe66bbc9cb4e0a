/** One stacked part of a day's bar: `series` (a model, a group) used `value` that day. */
export interface DayPoint {
  day: string;
  series: string;
  value: number;
}

const COLORS = ["#5b4bb7", "#e07a5f", "#3d9970", "#f2b134", "#2a9df4", "#b5651d", "#8e44ad", "#16a085"];
const WIDTH = 720;
const HEIGHT = 220;
const PAD = { left: 56, right: 8, top: 8, bottom: 28 };

/**
 * A value per day (tokens, cost) as stacked bars, one colour per series, drawn as plain SVG;
 * `label` names the chart for screen readers, `format` writes the axis values.
 */
export function DayChart({
  points,
  days,
  since,
  label,
  format = compact,
}: {
  points: DayPoint[];
  days: number;
  since: string;
  label: string;
  format?: (value: number) => string;
}) {
  const dayList = Array.from({ length: days }, (_, index) =>
    new Date(Date.parse(since) + index * 86_400_000).toISOString().slice(0, 10),
  );
  // The largest series first, at the foot of each bar and the head of the legend.
  const sums = new Map<string, number>();
  for (const point of points) sums.set(point.series, (sums.get(point.series) ?? 0) + point.value);
  const models = [...sums.keys()].sort((a, b) => sums.get(b)! - sums.get(a)!);
  const totals = new Map<string, Map<string, number>>();
  for (const point of points) {
    const perModel = totals.get(point.day) ?? new Map<string, number>();
    perModel.set(point.series, (perModel.get(point.series) ?? 0) + point.value);
    totals.set(point.day, perModel);
  }
  const dayTotal = (day: string) => [...(totals.get(day)?.values() ?? [])].reduce((a, b) => a + b, 0);
  const max = Math.max(1, ...dayList.map(dayTotal));
  const plotWidth = WIDTH - PAD.left - PAD.right;
  const plotHeight = HEIGHT - PAD.top - PAD.bottom;
  const slot = plotWidth / dayList.length;
  const barWidth = Math.max(2, slot * 0.7);
  const y = (value: number) => PAD.top + plotHeight - (value / max) * plotHeight;
  const labelEvery = Math.ceil(dayList.length / 8);

  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={label}>
        {[0, 0.5, 1].map((fraction) => (
          <g key={fraction}>
            <line
              x1={PAD.left}
              x2={WIDTH - PAD.right}
              y1={y(max * fraction)}
              y2={y(max * fraction)}
              class="grid"
            />
            <text x={PAD.left - 6} y={y(max * fraction) + 4} text-anchor="end" class="axis">
              {format(max * fraction)}
            </text>
          </g>
        ))}
        {dayList.map((day, index) => {
          let base = 0;
          const x = PAD.left + index * slot + (slot - barWidth) / 2;
          return (
            <g key={day}>
              {models.map((model, modelIndex) => {
                const value = totals.get(day)?.get(model) ?? 0;
                if (value === 0) return null;
                const top = y(base + value);
                const height = y(base) - top;
                base += value;
                return (
                  <rect key={model} x={x} y={top} width={barWidth} height={height} fill={color(modelIndex)}>
                    <title>{`${day} ${model}: ${format(value)}`}</title>
                  </rect>
                );
              })}
              {index % labelEvery === 0 && (
                <text x={x + barWidth / 2} y={HEIGHT - 8} text-anchor="middle" class="axis">
                  {day.slice(5)}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <figcaption class="legend">
        {models.map((model, index) => (
          <span key={model} data-user-content>
            <i style={{ background: color(index) }} /> {model}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}

function color(index: number): string {
  return COLORS[index % COLORS.length]!;
}

/** 1.2k, 3.4M: token counts on an axis. */
export function compact(value: number): string {
  if (value >= 1_000_000) return `${(value / 1_000_000).toFixed(1)}M`;
  if (value >= 1_000) return `${(value / 1_000).toFixed(1)}k`;
  return String(Math.round(value));
}
