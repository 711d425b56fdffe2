import { z } from 'zod';
import { durationProblem, parseDuration } from './durations.js';

/** A duration in the short YAML form or ISO-8601, parsed to milliseconds. */
export const durationSchema = z.string().max(100).transform((text, ctx) => {
  const problem = durationProblem(text);
  if (problem !== null) {
    ctx.addIssue({ code: 'custom', message: problem });
    return z.NEVER;
  }
  return parseDuration(text)!;
});
