import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A writer of numbered files in a fresh temporary directory (`<prefix><n><suffix>`): returns
 * each file's path.
 *
 * @example
 * const write = tempFileWriter("gasdigest-u64-");
 * const path = write('{"height":"1"}\n');
 */
export function tempFileWriter(prefix: string, suffix = ""): (text: string | Buffer) => string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  let files = 0;
  return (text) => {
    const path = join(dir, `f${files++}${suffix}`);
    writeFileSync(path, text);
    return path;
  };
}

/** Every item of an async iterable, in order. */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}
