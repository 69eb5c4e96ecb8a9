/** The error middleware: every handler's thrown error becomes a response here, and only here. */
export function errorResponse(error: unknown): { status: number; body: string } {
  const message = error instanceof Error ? error.message : String(error);
  return { status: 500, body: message };
}
