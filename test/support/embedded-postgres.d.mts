/** A running throwaway PostgreSQL server (see embedded-postgres.mjs). */
export interface EmbeddedPostgres {
  port: number;
  /** The superuser's URL of `database` (default `postgres`). */
  url(database?: string): string;
  /** Ends the server and deletes its directory; safe to call more than once. */
  stop(): Promise<void>;
}

export function startEmbeddedPostgres(options: { port: number; password: string; authMethod?: string; flags?: string[] }): Promise<EmbeddedPostgres>;
