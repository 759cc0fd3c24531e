/**
 * student-t: the two-sided p-value of Student's two-sample t test from
 * summary statistics, as `scipy.stats.ttest_ind_from_stats(...,
 * equal_var=True)`, which is the significance test of Apache Otava's
 * windowed E-divisive (see e-divisive.ts).
 *
 * The t distribution's tail is the regularized incomplete beta function
 * I_x(df/2, 1/2) at x = df / (df + t^2), evaluated by its continued fraction
 * (modified Lentz, Numerical Recipes 6.4) with a Lanczos log-gamma: about
 * 1e-13 relative, far below what a p-value threshold can tell apart.
 */

/**
 * tTestFromStats is the two-sided p-value of the pooled-variance t test of
 * two samples given their means, standard deviations and sizes (`std` as
 * the caller computed it; Otava passes numpy's population std). With zero
 * pooled variance the test is degenerate: p = 1 for equal means, 0 otherwise.
 */
export function tTestFromStats(mean1: number, std1: number, n1: number, mean2: number, std2: number, n2: number): number {
  const df = n1 + n2 - 2;
  if (df <= 0) return 1;
  const pooled = ((n1 - 1) * std1 * std1 + (n2 - 1) * std2 * std2) / df;
  const se = Math.sqrt(pooled * (1 / n1 + 1 / n2));
  const diff = mean1 - mean2;
  if (!(se > 0)) return diff === 0 ? 1 : 0;
  const t = diff / se;
  return Math.min(1, regularizedBeta(df / (df + t * t), df / 2, 0.5));
}

/** regularizedBeta is I_x(a, b) for x in [0, 1], a, b > 0. */
export function regularizedBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log1p(-x));
  // The continued fraction converges fast only below the mean a / (a + b); use the symmetry above it.
  if (x < (a + 1) / (a + b + 2)) return (front * betaFraction(x, a, b)) / a;
  return 1 - (front * betaFraction(1 - x, b, a)) / b;
}

function betaFraction(x: number, a: number, b: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 10000; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return h;
}

const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
  12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];

/** logGamma is log(Gamma(x)) for x > 0 (Lanczos, g = 7, n = 9). */
export function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - logGamma(1 - x);
  const z = x - 1;
  let sum = LANCZOS[0];
  for (let i = 1; i < 9; i++) sum += LANCZOS[i] / (z + i);
  const t = z + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(sum);
}
