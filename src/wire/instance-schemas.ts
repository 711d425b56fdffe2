import { z } from 'zod';

/** Wire shapes of the instances serving from one database (`GET /instances`). */

export const instanceView = z.object({
  id: z.string(),
  host: z.string(),
  pid: z.number().int(),
  version: z.string(),
  started_at: z.string(),
  last_seen: z.string(),
  registry_hash: z.string().describe('A short hash of the expert registry the instance runs; instances reading different config files differ here'),
  live: z.boolean().describe('Refreshed within the last 30 seconds'),
  this_instance: z.boolean().describe('The instance that answered this call'),
});

export const instanceList = z.object({ items: z.array(instanceView), warnings: z.array(z.string()) });
