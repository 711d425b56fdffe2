import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, LineController, LineElement, PointElement, Tooltip, type ChartConfiguration } from 'chart.js';
import { useEffect, useMemo, useRef } from 'preact/hooks';
import { periodLabel, timeUnit } from './insight-format.js';
import type { InsightsView } from './wire.js';

// Only the parts these charts use, so the bundle carries no more of Chart.js than that.
Chart.register(BarController, BarElement, CategoryScale, LinearScale, LineController, LineElement, PointElement, Legend, Tooltip);

type Period = InsightsView['groups'][number];

/** The UI's colours, each at least 4.5:1 on white, so bars, lines and their legends read as text does. */
export const COLOURS = {
  accepted: '#16794a',
  rejected: '#b42318',
  failed: '#9a6700',
  open: '#5b6675',
  answer: '#2355c9',
  decision: '#8a3ab9',
  library: '#16794a',
} as const;
const TEXT = '#5b6675';
const GRID = '#e3e7ed';
const FONT = { family: "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif", size: 12 };

/** Options every chart shares: fills its box as the page resizes, no animation, readable text. */
function base(yTitle: string, stacked = false): NonNullable<ChartConfiguration<'bar' | 'line'>['options']> {
  return {
    responsive: true,
    maintainAspectRatio: false,
    animation: false,
    interaction: { mode: 'index', intersect: false },
    plugins: {
      legend: { position: 'bottom', labels: { color: TEXT, font: FONT, boxWidth: 14 } },
      tooltip: { bodyFont: FONT, titleFont: FONT },
    },
    scales: {
      x: { stacked, ticks: { color: TEXT, font: FONT, autoSkip: true, maxRotation: 0 }, grid: { display: false } },
      y: { stacked, beginAtZero: true, ticks: { color: TEXT, font: FONT, precision: 0 }, grid: { color: GRID }, title: { display: true, text: yTitle, color: TEXT, font: FONT } },
    },
  };
}

/** A Chart.js chart on a canvas that fills its box; the canvas is an image named by `label`. */
function ChartCanvas(props: { config: ChartConfiguration<'bar' | 'line'>; label: string }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    const chart = new Chart(canvas.current!, props.config);
    return () => chart.destroy();
  }, [props.config]);
  return (
    <div class="chart-box">
      <canvas ref={canvas} role="img" aria-label={props.label}>{props.label}</canvas>
    </div>
  );
}

/** Requests per week, one stacked bar per week by outcome. */
export function OutcomeChart(props: { weeks: Period[] }) {
  const config = useMemo((): ChartConfiguration<'bar'> => {
    const series = (label: string, colour: string, value: (p: Period) => number) => ({ label, data: props.weeks.map(value), backgroundColor: colour, borderColor: colour });
    return {
      type: 'bar',
      data: {
        labels: props.weeks.map((w) => periodLabel(w.key)),
        datasets: [
          series('Accepted', COLOURS.accepted, (w) => w.requests.accepted),
          series('Rejected', COLOURS.rejected, (w) => w.requests.rejected),
          series('Failed', COLOURS.failed, (w) => w.requests.failed),
          series('Open', COLOURS.open, (w) => w.requests.open),
        ],
      },
      options: base('requests', true),
    };
  }, [props.weeks]);
  return <ChartCanvas config={config} label="Stacked bars: requests submitted each week, by outcome. The numbers are in the table below." />;
}

/** Time to first answer and proposal to decision, p50 and p90, per week; weeks without any are gaps bridged. */
export function TimesChart(props: { weeks: Period[] }) {
  const config = useMemo((): ChartConfiguration<'line'> => {
    const all = props.weeks.flatMap((w) => [w.time_to_first_answer.p90_s, w.proposal_to_decision.p90_s]).filter((s): s is number => s !== null);
    const unit = timeUnit(Math.max(0, ...all));
    const series = (label: string, colour: string, dashed: boolean, value: (p: Period) => number | null) => ({
      label,
      data: props.weeks.map((w) => {
        const s = value(w);
        return s === null ? null : Math.round((s / unit.seconds) * 100) / 100;
      }),
      borderColor: colour,
      backgroundColor: colour,
      borderDash: dashed ? [6, 4] : [],
      pointRadius: 3,
      spanGaps: true,
    });
    const options = base(unit.label);
    return {
      type: 'line',
      data: {
        labels: props.weeks.map((w) => periodLabel(w.key)),
        datasets: [
          series('First answer p50', COLOURS.answer, false, (w) => w.time_to_first_answer.p50_s),
          series('First answer p90', COLOURS.answer, true, (w) => w.time_to_first_answer.p90_s),
          series('Decision p50', COLOURS.decision, false, (w) => w.proposal_to_decision.p50_s),
          series('Decision p90', COLOURS.decision, true, (w) => w.proposal_to_decision.p90_s),
        ],
      },
      options: { ...options, scales: { ...options.scales, y: { ...options.scales!.y, ticks: { color: TEXT, font: FONT } } } },
    };
  }, [props.weeks]);
  return <ChartCanvas config={config} label="Lines: time to first answer and from proposal to decision each week, median (p50) and 90th percentile (p90). The numbers are in the table below." />;
}

/** Answers per week: by experts, and accepted from the library (each an ask spared). */
export function ReuseChart(props: { weeks: Period[] }) {
  const config = useMemo((): ChartConfiguration<'bar'> => ({
    type: 'bar',
    data: {
      labels: props.weeks.map((w) => periodLabel(w.key)),
      datasets: [
        { label: 'Answered by experts', data: props.weeks.map((w) => w.answers), backgroundColor: COLOURS.answer, borderColor: COLOURS.answer },
        { label: 'Answered from the library', data: props.weeks.map((w) => w.answered_from_library), backgroundColor: COLOURS.library, borderColor: COLOURS.library },
      ],
    },
    options: base('answers'),
  }), [props.weeks]);
  return <ChartCanvas config={config} label="Bars: answers each week by experts, and answers accepted from the library. The numbers are in the table below." />;
}
