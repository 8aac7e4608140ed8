import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time of a process's threads so far, ms (Linux /proc/<pid>/task; null elsewhere), split by
 * scheduling priority: the hashing threads run niced (src/auth/passwords/hash-pool.ts), everything
 * else — the event loop, V8's helpers, libuv's pool — does not. A token login's CPU then shows how much
 * of it is the password hash and how much is the request around it.
 */
export function threadCpuMs(pid: number): { niced: number; rest: number } | null {
  try {
    const split = { niced: 0, rest: 0 };
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      let stat: string;
      try {
        stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      } catch {
        continue; // the thread ended between the listing and the read
      }
      // Fields after the parenthesised command name: utime, stime are the 12th and 13th, nice the 17th.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ms = (Number(fields[11]) + Number(fields[12])) * 10;
      if (Number(fields[16]) > 0) split.niced += ms;
      else split.rest += ms;
    }
    return split;
  } catch {
    return null;
  }
}
