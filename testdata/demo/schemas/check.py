"""Check every schema here: valid JSON, a title, and $refs to files that exist."""

import json
import pathlib
import sys


def refs(node):
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield value
            else:
                yield from refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from refs(value)


def main():
    problems = []
    schemas = sorted(pathlib.Path(".").glob("*.schema.json"))
    for path in schemas:
        try:
            doc = json.loads(path.read_text())
        except json.JSONDecodeError as err:
            problems.append(f"{path}: {err}")
            continue
        if "title" not in doc:
            problems.append(f"{path}: no title")
        for ref in refs(doc):
            target = ref.split("#", 1)[0]
            if target and not pathlib.Path(target).exists():
                problems.append(f"{path}: $ref to missing {target}")
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"checked {len(schemas)} schemas")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
