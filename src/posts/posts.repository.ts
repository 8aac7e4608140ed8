import { insertReturningRow } from '../db/portable.ts';
import type { Db } from '../db/schema.ts';
import type { NewPostRow, PostRow } from './posts.table.ts';

/** The user's posts, newest first; all of them without a `limit` (the account's data export). */
export function listPostsOfUser(db: Db, userId: number, limit?: number): Promise<PostRow[]> {
  const query = db.selectFrom('posts').selectAll().where('user_id', '=', userId).orderBy('id', 'desc');
  return (limit === undefined ? query : query.limit(limit)).execute();
}

export function insertPost(db: Db, row: NewPostRow): Promise<PostRow> {
  return insertReturningRow(db, 'posts', row);
}
