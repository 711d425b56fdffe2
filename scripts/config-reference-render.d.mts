import type { z } from 'zod';

export const START: string;
export const END: string;
export const SAMPLE_INPUT: Record<string, unknown>;
export function formatDuration(ms: number): string;
export function referenceRows(schema: z.ZodType, sample: unknown): { key: string; type: string; def: string; description: string }[];
export function renderReference(schema: z.ZodType, sample: unknown): string;
export function replaceBlock(page: string, block: string): string;
