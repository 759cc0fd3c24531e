import { seededRandom } from './random.ts';

/**
 * lognormalSamples draws n values around `center` with multiplicative noise
 * of roughly `cv` (log-normal, Box-Muller), reproducibly from a seed.
 */
export function lognormalSamples(n: number, center: number, cv: number, seed: number): number[] {
  const random = seededRandom(seed);
  const values: number[] = [];
  for (let i = 0; i < n; i++) {
    const u = Math.max(random(), 1e-12);
    const v = random();
    const z = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    values.push(center * Math.exp(cv * z));
  }
  return values;
}
