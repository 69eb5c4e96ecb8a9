/**
 * Read a request body of at most `limit` bytes. A declared Content-Length over the limit is refused
 * before a byte is read; a body without one is refused as soon as it passes the limit. Nothing is
 * parsed until the whole body is known to fit.
 */
export async function readBoundedBody(
  request: Request,
  limit: number,
): Promise<{ ok: true; text: string } | { ok: false }> {
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > limit) return { ok: false };
  if (!request.body) return { ok: true, text: '' };
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => {});
      return { ok: false };
    }
    chunks.push(value);
  }
  return { ok: true, text: Buffer.concat(chunks).toString('utf8') };
}
