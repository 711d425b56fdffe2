import { z } from 'zod';

/** The longest id the API accepts (requests, proposals, consumers, experts); path parameters agree. */
export const MAX_ID_LENGTH = 200;

/** An id a caller names (a request, a proposal, …): the path parameter of the API, and the MCP tools' id inputs. */
export const idField = z.string().min(1).max(MAX_ID_LENGTH);

export const idParams = z.object({ id: idField });
