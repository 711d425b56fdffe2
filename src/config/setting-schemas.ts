import { z } from 'zod';

/** A setting that names an environment variable (secrets are read from the environment, never the file). */
export const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name');

/** A setting that is a regular expression, matched in any case. */
export const patternSchema = z
  .string()
  .min(1)
  .refine((p) => {
    try {
      new RegExp(p, 'i');
      return true;
    } catch {
      return false;
    }
  }, 'must be a regular expression');
