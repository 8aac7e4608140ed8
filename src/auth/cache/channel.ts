import type { DatabaseConnection } from 'kysely';

/** How one deployment's instances tell each other which tables changed (postgres-channel.ts, redis-channel.ts). */
export interface InvalidationChannel {
  /** Subscribes (in the background); `setServing(true)` once it is, `false` whenever it is lost. */
  start(): void;
  /** Sends `tables` from inside the writing statement's transaction, where the channel can (PostgreSQL). */
  inConnection?(connection: DatabaseConnection, tables: readonly string[]): Promise<void>;
  /**
   * Sends `tables` once their write has committed, where the channel cannot ride the transaction
   * (Redis); the writing request is answered only after it resolves.
   */
  publish(tables: readonly string[]): Promise<void> | void;
  /**
   * Whether every change committed more than the channel's bound ago has been heard, now; absent where
   * the channel cannot tell (then the cache's age bound alone applies).
   */
  current?(): boolean;
  close(): Promise<void>;
}

/** What a channel reports to: the cache store (cache-store.ts). */
export interface ChannelListener {
  changed(tables: readonly string[]): void;
  setServing(serving: boolean): void;
}

/** One message per statement (or transaction): table names joined by spaces. */
export function encodeTables(tables: readonly string[]): string {
  return [...new Set(tables)].join(' ');
}

export function decodeTables(payload: string): string[] {
  return payload.split(' ').filter(Boolean);
}
