#!/usr/bin/env python3
"""Where GitHub's renderer shows a `/bench` command: the reference for findCommandLine.

Reads a JSON array of comment bodies on stdin and writes a JSON array of the
same length: for each body, the first line of the first top-level paragraph
that starts with `/bench` (followed by the end of the line or a character
other than a letter, digit, `_` or `-`), as cmark-gfm renders the body, or
null. test/app/command-gfm-differential.test.ts compares it with
src/app/bench-command.ts over generated bodies.

Rendering is cmark-gfm's (the `cmarkgfm` package on PyPI wraps GitHub's
C library) with GitHub's extensions (tables, strikethrough, autolinks,
tagfilter, task lists) and footnotes, as GitHub renders comments. Raw HTML is
left out (cmark-gfm's safe mode writes `<!-- raw HTML omitted -->`), so the
HTML is cmark-gfm's own and well formed: what GitHub's sanitizer would keep of
an HTML block is never a paragraph, here or in findCommandLine.

A paragraph is top-level when no element encloses it: not in a quote, list,
table or the footnotes section (an unreferenced footnote is not rendered at
all). Its first line is its text up to the first soft line break.
"""

import json
import re
import sys
from html.parser import HTMLParser

import cmarkgfm
from cmarkgfm.cmark import Options

OPTIONS = Options.CMARK_OPT_FOOTNOTES
COMMAND = re.compile(r"/bench(?=$|[^A-Za-z0-9_-])", re.IGNORECASE)
# Elements cmark-gfm writes without an end tag.
VOID = {"br", "hr", "img", "input"}


class TopLevelParagraphs(HTMLParser):
    """Collects the text of every paragraph that no other element encloses."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []
        self.paragraphs = []
        self.current = None

    def handle_starttag(self, tag, attrs):
        if tag in VOID:
            return
        if tag == "p" and not self.stack:
            self.current = []
        self.stack.append(tag)

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            raise ValueError(f"unbalanced </{tag}> in cmark-gfm's output (open: {self.stack})")
        self.stack.pop()
        if tag == "p" and not self.stack:
            self.paragraphs.append("".join(self.current))
            self.current = None

    def handle_data(self, data):
        if self.current is not None:
            self.current.append(data)


def visible_command(body):
    html = cmarkgfm.github_flavored_markdown_to_html(body, options=OPTIONS)
    parser = TopLevelParagraphs()
    parser.feed(html)
    parser.close()
    for text in parser.paragraphs:
        first = text.split("\n", 1)[0].strip(" \t")
        if COMMAND.match(first):
            return first
    return None


def main():
    bodies = json.load(sys.stdin)
    json.dump([visible_command(body) for body in bodies], sys.stdout)


if __name__ == "__main__":
    main()
