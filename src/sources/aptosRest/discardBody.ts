/**
 * Read and drop the body of an answer the source does not use (an error status), up to
 * `maxBytes` (then cancel it): small bodies are drained so the connection can be reused, big
 * ones cost nothing. Never rejects.
 *
 * @example
 * if (res.status !== 200) await discardBody(res);
 */
export async function discardBody(res: Response, maxBytes = 65_536): Promise<void> {
  if (!res.body) return;
  const reader = res.body.getReader();
  let bytes = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      bytes += value.byteLength;
      if (bytes > maxBytes) break;
    }
  } catch {
    return;
  }
  await reader.cancel().catch(() => undefined);
}
