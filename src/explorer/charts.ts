import uPlot from 'uplot';

/** One line over x values (heights or unix seconds), drawn by uPlot into `el`. */
export interface Line {
  label: string;
  values: number[];
  color: string;
}

/**
 * A uPlot chart sized to its container. `time`: x are unix seconds (uPlot's time scale);
 * else x are plain numbers (block heights). Points are drawn, so a series of one hour shows.
 */
export function chart(
  el: HTMLElement,
  title: string,
  xs: number[],
  lines: Line[],
  opts: { time?: boolean; stepped?: boolean } = {},
): uPlot {
  el.replaceChildren();
  const width = Math.max(280, el.clientWidth || 560);
  return new uPlot(
    {
      title,
      width,
      height: 220,
      // One point (a chain's first hour) gets an hour either side instead of uPlot's default years.
      scales: {
        x: {
          time: opts.time ?? false,
          ...(xs.length === 1
            ? { range: [xs[0] - (opts.time ? 3600 : 1), xs[0] + (opts.time ? 3600 : 1)] as uPlot.Range.MinMax }
            : {}),
        },
      },
      axes: [{ stroke: '#667' }, { stroke: '#667', size: 60 }],
      series: [
        { label: opts.time ? 'time' : 'height' },
        ...lines.map((l) => ({
          label: l.label,
          stroke: l.color,
          width: 2,
          fill: `${l.color}22`,
          points: { show: true, size: 5 },
          ...(opts.stepped ? { paths: uPlot.paths.stepped!({ align: 1 }) } : {}),
        })),
      ],
    },
    [xs, ...lines.map((l) => l.values)],
    el,
  );
}
