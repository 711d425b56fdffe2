/**
 * mulberry32: a tiny seeded pseudo-random generator returning numbers in [0, 1). The bench, the crash
 * test and the expert-protection simulation draw from it, so a run (and a failing one) replays exactly
 * from its seed. Not for anything secret.
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
