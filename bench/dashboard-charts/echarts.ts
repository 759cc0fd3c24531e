// The chart-library measurement, Apache ECharts side: the same chart as
// uplot.ts (line, CI band as a stacked area, zoom), tree-shaken to what it uses.
import { init, use } from 'echarts/core';
import { LineChart } from 'echarts/charts';
import { DataZoomComponent, GridComponent } from 'echarts/components';
import { CanvasRenderer } from 'echarts/renderers';

use([LineChart, GridComponent, DataZoomComponent, CanvasRenderer]);
const id = location.hash.slice(1);
const [series, runs] = await Promise.all([fetch(`data/series/${id}.json`).then((r) => r.json()), fetch('data/runs.json').then((r) => r.json())]);
const xs = (series.run as number[]).map((r) => runs.runs[r][1]);
const el = document.createElement('div');
el.style.width = '1000px';
el.style.height = '340px';
document.body.appendChild(el);
const chart = init(el, undefined, { renderer: 'canvas' });
chart.on('finished', () => performance.mark('first-chart'));
chart.setOption({
  animation: false,
  xAxis: { type: 'time' }, yAxis: { type: 'value', scale: true }, dataZoom: [{ type: 'inside' }],
  series: [
    { type: 'line', data: xs.map((x, i) => [x, series.lo[i]]), stack: 'band', lineStyle: { opacity: 0 }, symbol: 'none' },
    { type: 'line', data: xs.map((x, i) => [x, series.hi[i] - series.lo[i]]), stack: 'band', lineStyle: { opacity: 0 }, areaStyle: { color: 'rgba(0,114,178,.18)' }, symbol: 'none' },
    { type: 'line', data: xs.map((x, i) => [x, series.median[i]]), lineStyle: { color: '#0072B2', width: 2 }, symbol: 'none' },
  ],
});
