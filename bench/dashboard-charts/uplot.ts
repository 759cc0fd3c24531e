// The chart-library measurement, uPlot side: one series page's chart
// (365 nightly medians with their CI band) from the generated site's data.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

const id = location.hash.slice(1);
const [series, runs] = await Promise.all([fetch(`data/series/${id}.json`).then((r) => r.json()), fetch('data/runs.json').then((r) => r.json())]);
const xs = (series.run as number[]).map((r) => runs.runs[r][1] / 1000);
new uPlot({
  width: 1000, height: 340, scales: { x: { time: true } }, legend: { show: false },
  series: [{}, { stroke: '#0072B2', width: 2 }, { stroke: 'rgba(0,114,178,.45)' }, { stroke: 'rgba(0,114,178,.45)' }],
  bands: [{ series: [3, 2], fill: 'rgba(0,114,178,.18)' }],
}, [xs, series.median, series.lo, series.hi], document.body);
performance.mark('first-chart');
