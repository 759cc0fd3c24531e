/**
 * jsonErrorOffset returns the character offset of the first syntax error in
 * a JSON text (the text's length when it ends early). JSON.parse does not
 * always say where it failed (`Unexpected token 'N' ... is not valid JSON`,
 * `Unexpected end of JSON input`), so this small scanner runs on the error
 * path only, to put a line number in the message.
 */
export function jsonErrorOffset(text: string): number {
  let i = 0;
  const fail = (at: number): never => {
    throw at;
  };
  const ws = () => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  };
  const literal = (word: string) => {
    for (let k = 0; k < word.length; k++) if (text[i + k] !== word[k]) fail(i + k);
    i += word.length;
  };
  const string = () => {
    i++;
    while (i < text.length) {
      const ch = text.charCodeAt(i);
      if (ch === 0x22) return void i++;
      if (ch < 0x20) fail(i);
      if (ch === 0x5c) {
        const next = text[i + 1];
        if (next === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) fail(i);
          i += 6;
        } else if (next !== undefined && '"\\/bfnrt'.includes(next)) i += 2;
        else fail(i);
      } else i++;
    }
    fail(i);
  };
  const number = () => {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!match || match[0] === '' || match[0] === '-') fail(i);
    i += (match as RegExpExecArray)[0].length;
  };
  const value = (depth: number): void => {
    if (depth > 512) fail(i);
    ws();
    const ch = text[i];
    if (ch === '{') {
      i++;
      ws();
      if (text[i] === '}') return void i++;
      for (;;) {
        ws();
        if (text[i] !== '"') fail(i);
        string();
        ws();
        if (text[i] !== ':') fail(i);
        i++;
        value(depth + 1);
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === '}') return void i++;
        else fail(i);
      }
    } else if (ch === '[') {
      i++;
      ws();
      if (text[i] === ']') return void i++;
      for (;;) {
        value(depth + 1);
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === ']') return void i++;
        else fail(i);
      }
    } else if (ch === '"') string();
    else if (ch === 't') literal('true');
    else if (ch === 'f') literal('false');
    else if (ch === 'n') literal('null');
    else number();
  };
  try {
    value(0);
    ws();
    return i < text.length ? i : -1;
  } catch (at) {
    return Math.min(at as number, text.length);
  }
}
