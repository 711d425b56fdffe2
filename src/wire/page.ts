import { z, type ZodType } from 'zod';

/** One page of a list answer (`GET /requests`, `/answers`, `/deliveries`): its items, and the cursor of the next page. */
export const pageOf = <T extends ZodType>(item: T) => z.object({ items: z.array(item), next_cursor: z.string().nullable() });
