/** A plain JSON object (not null, not an array): what a decoder checks before it reads fields. */
export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
