import { monotonicFactory } from 'ulid';

const next = monotonicFactory();

export type IdPrefix = 'req' | 'prop' | 'ask' | 'evt' | 'dlv' | 'msg';

/** Opaque, prefixed ids that sort by creation (ULIDs): `req_01J…`. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${next()}`;
}
