/** The token of an "authorization: Bearer <token>" header. */
export function bearerToken(header: string | null | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^\s*Bearer\s+(\S+)\s*$/i.exec(header);
  return m?.[1];
}
