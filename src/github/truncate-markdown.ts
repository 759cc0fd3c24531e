/**
 * truncateMarkdown cuts Markdown to at most `limit` UTF-8 bytes including the
 * closing note, preferring a line break so that a table row is not cut in
 * half, and never splitting a character. GitHub documents its text limits in
 * characters but enforces some of them on bytes; counting bytes satisfies both
 * readings. `note(bytes, limit)` writes the note from the original size.
 */
export function truncateMarkdown(markdown: string, limit: number, note: (bytes: number, limit: number) => string): { text: string; truncated: boolean } {
  const encoder = new TextEncoder();
  const bytes = encoder.encode(markdown);
  if (bytes.length <= limit) return { text: markdown, truncated: false };
  const closing = note(bytes.length, limit);
  const budget = limit - encoder.encode(closing).length;
  if (budget <= 0) throw new RangeError(`truncateMarkdown: limit ${limit} leaves no room for the note`);
  let cut = budget;
  // Step back off UTF-8 continuation bytes so the cut lands on a character start.
  while (cut > 0 && (bytes[cut] & 0xc0) === 0x80) cut--;
  let head = new TextDecoder().decode(bytes.subarray(0, cut));
  const lastBreak = head.lastIndexOf('\n');
  if (lastBreak > head.length * 0.75) head = head.slice(0, lastBreak);
  return { text: head + closing, truncated: true };
}
