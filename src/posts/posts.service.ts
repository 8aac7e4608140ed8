import type { Db } from '../db/schema.ts';
import { insertPost, listPostsOfUser } from './posts.repository.ts';
import type { PostRow } from './posts.table.ts';

export interface Post {
  id: number;
  user_id: number;
  title: string;
  body: string;
  created_at: string;
  updated_at: string;
}

/** Newest first; capped so one user with many posts cannot make a response unbounded. */
export async function listPosts(db: Db, userId: number, limit = 100): Promise<Post[]> {
  return (await listPostsOfUser(db, userId, limit)).map(toPost);
}

export async function createPost(
  db: Db,
  userId: number,
  input: { title: string; body: string },
  now: number,
): Promise<Post> {
  const row = await insertPost(db, { user_id: userId, ...input, created_at: now, updated_at: now });
  return toPost(row);
}

function toPost(row: PostRow): Post {
  return {
    id: row.id,
    user_id: row.user_id,
    title: row.title,
    body: row.body,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}
