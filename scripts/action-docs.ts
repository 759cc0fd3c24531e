// Regenerates the README's action reference from action.yml and its starter
// workflows from workflows/, between marker comments. `npm run docs:action`
// writes; `--check` exits 1 when the README is out of date.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** ActionField is one input or output of action.yml. */
export interface ActionField {
  name: string;
  description: string;
  required?: boolean;
  default?: string;
}

/** ActionMetadata is the part of action.yml the README documents. */
export interface ActionMetadata {
  inputs: ActionField[];
  outputs: ActionField[];
}

/**
 * readActionMetadata reads the `inputs:` and `outputs:` maps of action.yml.
 * It understands the subset the file uses (two-space indents; plain, quoted
 * and folded `>-` scalars) and throws on anything else, naming the line, so
 * that a change of style fails loudly instead of dropping an input.
 */
export function readActionMetadata(text: string): ActionMetadata {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  const result: ActionMetadata = { inputs: [], outputs: [] };
  let section: ActionField[] | undefined;
  let field: ActionField | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    const top = /^([\w-]+):\s*(.*)$/.exec(line);
    if (top) {
      section = top[1] === 'inputs' ? result.inputs : top[1] === 'outputs' ? result.outputs : undefined;
      field = undefined;
      continue;
    }
    if (!section) continue;
    const name = /^ {2}([\w-]+):\s*$/.exec(line);
    if (name) {
      field = { name: name[1], description: '' };
      section.push(field);
      continue;
    }
    const property = /^ {4}([\w-]+):\s*(.*)$/.exec(line);
    if (!property || !field) throw new Error(`action.yml:${i + 1}: expected "  name:" or "    property: value" under inputs/outputs, got ${JSON.stringify(line)}`);
    let value = property[2];
    if (value === '>-' || value === '>') {
      const folded: string[] = [];
      while (i + 1 < lines.length && (/^ {6}\S/.test(lines[i + 1]) || lines[i + 1].trim() === '')) folded.push(lines[++i].trim());
      value = folded.join(' ').replace(/\s+/g, ' ').trim();
    } else {
      value = scalar(value, i + 1);
    }
    if (property[1] === 'description') field.description = value;
    else if (property[1] === 'required') field.required = value === 'true';
    else if (property[1] === 'default') field.default = value;
  }
  return result;
}

function scalar(text: string, line: number): string {
  const value = text.trim();
  if (value.startsWith("'")) {
    if (!value.endsWith("'") || value.length < 2) throw new Error(`action.yml:${line}: unterminated single-quoted value`);
    return value.slice(1, -1).replace(/''/g, "'");
  }
  if (value.startsWith('"')) return JSON.parse(value) as string;
  // YAML reads these as a mapping or a comment, not as part of a plain scalar.
  if (/: |:$| #/.test(value)) throw new Error(`action.yml:${line}: plain value ${JSON.stringify(value)} contains ": " or " #"; quote it or fold it with >-`);
  return value;
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

/** renderActionReference renders the inputs and outputs as Markdown tables. */
export function renderActionReference(metadata: ActionMetadata): string {
  const inputs = metadata.inputs.map((f) => {
    const fallback = f.required ? '**required**' : f.default === undefined || f.default === '' ? '' : `\`${f.default}\``;
    return `| \`${f.name}\` | ${cell(fallback)} | ${cell(f.description)} |`;
  });
  const outputs = metadata.outputs.map((f) => `| \`${f.name}\` | ${cell(f.description)} |`);
  return ['| Input | Default | Description |', '| --- | --- | --- |', ...inputs, '', '| Output | Description |', '| --- | --- |', ...outputs].join('\n');
}

/** STARTER_TITLES orders the starter workflows in the README and says what each is for. */
export const STARTER_TITLES: Record<string, string> = {
  'benchbot-pr.yml': 'Every pull request (from this repository; forks need `/bench`)',
  'benchbot-bench-command.yml': 'The `/bench` target (dispatched by the benchbot app, or by hand)',
  'benchbot-nightly.yml': 'Nightly history of the default branch',
  'benchbot-bisect.yml': 'Bisect a nightly regression (dispatched by the benchbot app, or by hand)',
};

/** renderStarterWorkflows shows each starter workflow as a copy-paste snippet, in the order of STARTER_TITLES. */
export function renderStarterWorkflows(dir: string): string {
  const files = readdirSync(dir).filter((f) => f.endsWith('.yml'));
  const unknown = files.filter((f) => !(f in STARTER_TITLES));
  if (unknown.length > 0) throw new Error(`workflows/${unknown[0]} has no title in STARTER_TITLES (scripts/action-docs.ts)`);
  return Object.entries(STARTER_TITLES)
    .filter(([file]) => files.includes(file))
    .map(([file, title]) => `**${title}** — [\`workflows/${file}\`](workflows/${file}), copy to \`.github/workflows/${file}\`:\n\n\`\`\`yaml\n${readFileSync(join(dir, file), 'utf8').trimEnd()}\n\`\`\``)
    .join('\n\n');
}

/** replaceBetween swaps the text between `<!-- NAME:start -->` and `<!-- NAME:end -->`. */
export function replaceBetween(document: string, name: string, content: string): string {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const from = document.indexOf(start);
  const to = document.indexOf(end);
  if (from === -1 || to < from) throw new Error(`README.md has no ${start} ... ${end} markers`);
  return `${document.slice(0, from + start.length)}\n<!-- generated by \`npm run docs:action\` from ${name === 'action-inputs' ? 'action.yml' : 'workflows/'}; do not edit -->\n${content}\n${document.slice(to)}`;
}

/** renderReadme returns the README with both generated blocks brought up to date. */
export function renderReadme(root: string): string {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const metadata = readActionMetadata(readFileSync(join(root, 'action.yml'), 'utf8'));
  const withInputs = replaceBetween(readme, 'action-inputs', renderActionReference(metadata));
  return replaceBetween(withInputs, 'starter-workflows', renderStarterWorkflows(join(root, 'workflows')));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const current = readFileSync(join(root, 'README.md'), 'utf8');
  const next = renderReadme(root);
  if (process.argv.includes('--check')) {
    if (next !== current) {
      process.stderr.write('README.md is out of date with action.yml or workflows/; run `npm run docs:action`\n');
      process.exitCode = 1;
    }
  } else if (next !== current) {
    writeFileSync(join(root, 'README.md'), next);
    process.stdout.write('README.md updated\n');
  }
}
