import { randomFillSync } from 'node:crypto';
import { monotonicFactory } from 'ulid';

/**
 * ulid's default source calls crypto once per character (a measurable share of a submit). Same
 * CSPRNG, drawn from a pool refilled 4 KiB at a time.
 */
const pool = new Uint32Array(1024);
let used = pool.length;
function pooledRandom(): number {
  if (used === pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  return pool[used++]! / 0x1_0000_0000;
}

const next = monotonicFactory(pooledRandom);

export type IdPrefix = 'req' | 'prop' | 'ask' | 'evt' | 'dlv' | 'msg' | 'llm' | 'ans';

/** Opaque, prefixed ids that sort by creation (ULIDs): `req_01J…`. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${next()}`;
}
