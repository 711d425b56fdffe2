import type { z } from 'zod';
import type { auditEntry, errorBody, expertView, proposal, queueItem, requestRecord } from '../../src/http/schemas.js';

/** The API's wire shapes, inferred from the server's own zod schemas (types only: nothing is bundled). */
export type Proposal = z.infer<typeof proposal>;
export type QueueItem = z.infer<typeof queueItem>;
export type RequestRecord = z.infer<typeof requestRecord>;
export type AuditEntry = z.infer<typeof auditEntry>;
export type Expert = z.infer<typeof expertView>;
export type ErrorBody = z.infer<typeof errorBody>;
