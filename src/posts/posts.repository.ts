import { insertReturningRow } from '../db/portable.ts';
import type { Db } from '../db/schema.ts';
import type { NewPostRow, PostRow } from './posts.table.ts';

export function listPostsOfUser(db: Db, userId: number, limit: number): Promise<PostRow[]> {
  return db
    .selectFrom('posts')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

export function insertPost(db: Db, row: NewPostRow): Promise<PostRow> {
  return insertReturningRow(db, 'posts', row);
}
