"""Check that every relative Markdown link in the docs points at a file."""

import pathlib
import re
import sys

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def main():
    problems = []
    pages = sorted(pathlib.Path(".").rglob("*.md"))
    for page in pages:
        for target in LINK.findall(page.read_text()):
            if "://" in target or target.startswith(("#", "mailto:")):
                continue
            path = (page.parent / target.split("#", 1)[0]).resolve()
            if not path.exists():
                problems.append(f"{page}: broken link {target}")
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"checked {len(pages)} pages")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
