import type { DatabaseConnection } from 'kysely';
import type { Invalidation } from './invalidations.ts';

/** How one deployment's instances tell each other what changed (postgres-channel.ts, redis-channel.ts). */
export interface InvalidationChannel {
  /** Subscribes (in the background); the store serves entries only once it is subscribed. */
  start(): void;
  /** Sends `keys` from inside the writing statement's transaction, where the channel can (PostgreSQL). */
  inConnection?(connection: DatabaseConnection, keys: readonly Invalidation[]): Promise<void>;
  /** Sends `keys` once their write has committed, where the channel cannot ride the transaction (Redis). */
  publish(keys: readonly Invalidation[]): void;
  close(): Promise<void>;
}
