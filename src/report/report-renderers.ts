import type { ComparisonReport } from '../compare/compare-runs.ts';
import { renderComparePy, type ComparePySide } from './compare-py-report.ts';
import { toJsonReport } from './json-report.ts';
import { renderMarkdown, type MarkdownOptions } from './markdown-report.ts';
import { renderText } from './text-report.ts';

/**
 * ReportContext is what a report shows besides the comparisons. Each
 * renderer takes the parts its format can show and leaves the rest.
 */
export interface ReportContext {
  /** environment is the one-line machine description (plain text, made inert where it is markdown). */
  environment?: string;
  /** footer is markdown after the method note; the caller made any untrusted text in it inert. */
  footer?: string;
  /** statistics is markdown shown with the method note, behind the footer's <details>; made inert like `footer`. */
  statistics?: string;
  /** merged says the head is already on its branch (a nightly), for the headline's advice. */
  merged?: boolean;
  /** textFooter is plain text after the text table, one or more lines. */
  textFooter?: string;
  /** json holds the fields the JSON report carries beside the comparisons (SHAs, looks, shards, ...). */
  json?: Record<string, unknown>;
  /** dashboard links the markdown's changes to their nightly series. */
  dashboard?: MarkdownOptions['dashboard'];
  /** where is markdown (benchbot's, untrusted text made inert) saying where the regressions live: their differential profiles, folded. */
  where?: string;
  /** comparePy is both sides as compare.py reads them (rows, aggregates included), for renderers with `rows`. */
  comparePy?: { base: ComparePySide; head: ComparePySide };
}

/** ReportRenderer turns a comparison report into one output format. */
export interface ReportRenderer {
  /**
   * rows says the renderer reads the inputs' own rows (ReportContext's
   * comparePy), not only the comparisons: only a command that reads result
   * files can offer it.
   */
  rows?: boolean;
  render(report: ComparisonReport, context: ReportContext): string;
}

/**
 * REPORT_RENDERERS is every report format `--output` accepts, in the order
 * the help lists them; the CLI's commands and the action's report files
 * render through it, so a new format is added here and nowhere else.
 */
export const REPORT_RENDERERS = {
  markdown: { render: (report, c) => renderMarkdown(report, { environment: c.environment, footer: c.footer, statistics: c.statistics, merged: c.merged, dashboard: c.dashboard, where: c.where }) },
  text: { render: (report, c) => (c.textFooter === undefined ? renderText(report) : `${renderText(report)}\n${c.textFooter}`) },
  json: { render: (report, c) => JSON.stringify({ ...toJsonReport(report), ...c.json }, null, 2) },
  'compare.py': {
    rows: true,
    render: (_report, c) => {
      if (c.comparePy === undefined) throw new Error('the compare.py report needs both sides\' rows (ReportContext.comparePy)');
      return renderComparePy(c.comparePy.base, c.comparePy.head);
    },
  },
} satisfies Record<string, ReportRenderer>;

/** ReportFormat names a renderer of REPORT_RENDERERS. */
export type ReportFormat = keyof typeof REPORT_RENDERERS;

/** reportFormats lists the formats a command can offer: with `rows` false, only those rendered from the comparisons alone. */
export function reportFormats(options: { rows: boolean }): ReportFormat[] {
  return (Object.keys(REPORT_RENDERERS) as ReportFormat[]).filter((f) => options.rows || !(REPORT_RENDERERS[f] as ReportRenderer).rows);
}

/** isReportFormat says whether `name` is a format of REPORT_RENDERERS among `offered`. */
export function isReportFormat(name: string, offered: readonly ReportFormat[]): name is ReportFormat {
  return (offered as readonly string[]).includes(name);
}

/** renderReport renders `report` in `format`. */
export function renderReport(format: ReportFormat, report: ComparisonReport, context: ReportContext = {}): string {
  return (REPORT_RENDERERS[format] as ReportRenderer).render(report, context);
}
