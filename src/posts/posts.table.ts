import type { Generated, Insertable, Selectable } from 'kysely';

export interface PostsTable {
  id: Generated<number>;
  user_id: number;
  title: string;
  body: string;
  created_at: number;
  updated_at: number;
}

export type PostRow = Selectable<PostsTable>;
export type NewPostRow = Insertable<PostsTable>;
