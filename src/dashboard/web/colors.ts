/**
 * colors: the Okabe-Ito palette, which stays distinguishable with the common
 * color-vision deficiencies; every mark also differs by line style and is
 * named in text, so color is never the only signal.
 */
export const COLORS = {
  median: '#0072B2',
  band: 'rgba(0, 114, 178, 0.18)',
  bandEdge: 'rgba(0, 114, 178, 0.45)',
  regression: '#D55E00',
  improvement: '#009E73',
  awaiting: '#CC79A7',
  watch: '#56B4E9',
  refuted: '#767676',
  ack: '#000000',
  issue: '#CC79A7',
  selected: '#E69F00',
} as const;

/** DASHES: line style per mark, for readers who cannot tell the colors apart. */
export const DASHES = {
  regression: [6, 3],
  improvement: [2, 3],
  awaiting: [10, 3, 2, 3],
  watch: [2, 6],
  refuted: [1, 4],
  ack: [],
} as const;
