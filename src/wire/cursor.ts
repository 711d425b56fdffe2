import { z } from 'zod';

/** What a cursor that no list handed out is told (the same on every paginated list). */
export const NOT_A_CURSOR = 'is not a cursor this list handed out: pass next_cursor from the previous page, or leave cursor out for the first page';

const ULID = '[0-9A-HJKMNP-TV-Z]{26}';

/** The id prefixes of paginated lists (a subset of ids.ts's, spelled here so the web build need not read ids.ts). */
type IdPrefix = 'req' | 'dlv' | 'ans';

const ID_CURSOR: Record<IdPrefix, RegExp> = { req: idPattern('req'), dlv: idPattern('dlv'), ans: idPattern('ans') };

function idPattern(prefix: IdPrefix): RegExp {
  return new RegExp(`^${prefix}_${ULID}$`);
}

/** A page cursor that is the id of the last item of the previous page (`req_…`, `dlv_…`): anything else is refused. */
export function idCursor(prefix: IdPrefix) {
  return z
    .string()
    .regex(ID_CURSOR[prefix], NOT_A_CURSOR)
    .optional()
    .describe('next_cursor from the previous page; leave it out for the first page.');
}

/** The id form of a cursor of `prefix` (an unranked page), for checks that depend on other parameters. */
export const isIdCursor = (prefix: IdPrefix, cursor: string) => ID_CURSOR[prefix].test(cursor);

/** The position form of a cursor (a page of a ranked search): a whole number of entries already shown. */
export const isPositionCursor = (cursor: string) => /^[1-9][0-9]{0,8}$/.test(cursor);
