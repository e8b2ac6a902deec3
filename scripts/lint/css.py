#!/usr/bin/python3
"""Checks the pages' stylesheets with cssutils (Debian's python3-cssutils): every rule must
parse, every property name must be known and every value valid for it. cssutils knows
CSS 2.1 and a few CSS 3 modules; LAYOUT below adds the later properties and values the
pages use (flexbox, grid, gap, viewport units, calc), each written out, so a misspelt
name or an impossible value still fails. A property the pages start to use is added here.

Usage: css.py FILE...   Prints FILE:LINE:COLUMN: message (FILE: message where cssutils says no
place) for each problem; exits 1 if any.
"""
import logging
import re
import sys

import cssutils

LAYOUT_MACROS = {
    "length-v": r"0|{num}(em|ex|px|in|cm|mm|pt|pc|rem|ch|vw|vh|vmin|vmax)",
    "calc": r"calc\({w}[-+*/ ().%0-9a-z]+{w}\)",
    "size": r"{length-v}|{percentage}|{calc}|auto|none|min-content|max-content|fit-content",
    "gap-1": r"normal|{length-v}|{percentage}",
    "breadth": r"{length-v}|{percentage}|{num}fr|auto|min-content|max-content",
    "track": r"{breadth}|minmax\({w}{breadth}{w},{w}{breadth}{w}\)",
    "grid-line": r"auto|{int}|span {int}|{ident}",
    "alignment": r"normal|stretch|center|start|end|flex-start|flex-end|baseline|space-between|space-around|space-evenly",
}

LAYOUT = {
    # CSS Display 3, Flexbox and Grid: the values CSS 2.1's display lacks.
    "display": r"flex|inline-flex|grid|inline-grid|flow-root|contents",
    "flex-wrap": r"nowrap|wrap|wrap-reverse",
    "flex-direction": r"row|row-reverse|column|column-reverse",
    "align-items": r"{alignment}",
    "justify-content": r"{alignment}",
    "gap": r"{gap-1}({w}{gap-1})?",
    "grid-template-columns": r"none|{track}(\s+{track})*",
    "grid-column": r"{grid-line}({w}/{w}{grid-line})?",
    # CSS Backgrounds 3: only to take Leaflet's tooltip shadow off the street names.
    "box-shadow": r"none",
    # CSS Text 3.
    "overflow-wrap": r"normal|break-word|anywhere",
    # CSS Sizing 3 and Values 4: viewport units, calc() and the intrinsic sizes.
    **{name: r"{size}" for name in ["width", "height", "min-width", "min-height", "max-width", "max-height"]},
}


class Problems(logging.Handler):
    """Collects cssutils' warnings and errors (unknown names, invalid values, syntax)."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def main(paths):
    cssutils.profile.addProfile("BikePath layout (CSS 3 modules the pages use)", LAYOUT, LAYOUT_MACROS)
    logger = logging.getLogger("css-lint")
    logger.propagate = False
    problems = Problems()
    logger.addHandler(problems)
    cssutils.log.setLog(logger)
    failed = 0
    for path in paths:
        with open(path, encoding="utf-8") as file:
            text = file.read()
        problems.messages.clear()
        sheet = cssutils.CSSParser(validate=True).parseString(text, href=path)
        # A stylesheet cut short (an unclosed block) parses silently: it must end where its last rule does.
        code = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
        if code.count("{") != code.count("}"):
            problems.messages.append(f"unbalanced braces: {code.count('{')} '{{' and {code.count('}')} '}}'")
        if not sheet.cssRules and text.strip():
            problems.messages.append("no rule parsed")
        for message in problems.messages:
            # cssutils says where as "[LINE:COLUMN: name]"; put it first, as ESLint does.
            where = re.search(r"\[(\d+):(\d+): ", message) or re.search(r"'\S+', (\d+), (\d+)\)", message)
            print(f"{path}:{where[1]}:{where[2]}: {message}" if where else f"{path}: {message}")
        failed += len(problems.messages)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
