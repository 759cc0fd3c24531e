/**
 * shellWord makes one POSIX shell word of any text, so a command a report
 * shows for copying (a benchmark name, a bench command from the workflow)
 * runs nothing the text smuggled in: plain words stay as they are, anything
 * else goes in single quotes.
 */
export function shellWord(text: string): string {
  const s = String(text);
  return /^[\w./:=@%+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
