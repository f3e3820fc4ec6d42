#!/usr/bin/env python3
"""The examples in the public headers, compiled by the build.

Each header of include/clgpu/ that declares a function (CLGPU_API) holds one
example program in a comment, between a line ending in "Example:" and a line
" * End of example." Every example line starts with " * " (or is " *" for a
blank line), which is taken off.

  header_examples.py extract HEADER OUT.c     write HEADER's example to OUT.c
                                              (the build compiles and links it)
  header_examples.py check INCLUDE_DIR EXE...  check that every header with a
                                              function has exactly one example
                                              and that an example executable
                                              was built for each (EXE is
                                              header_example_NAME)
"""
import os
import re
import sys

BEGIN = re.compile(r"^ \* Example:$")
END = re.compile(r"^ \* End of example\.")


def examples(header):
    """The examples of a header, each a list of lines without the comment's
    prefix."""
    with open(header, encoding="utf-8") as f:
        lines = f.read().splitlines()
    found = []
    current = None
    for number, line in enumerate(lines, 1):
        if current is None:
            if BEGIN.match(line):
                current = []
            continue
        if END.match(line):
            found.append(current)
            current = None
        elif line == " *":
            current.append("")
        elif line.startswith(" * "):
            current.append(line[3:])
        else:
            sys.exit(f"{header}:{number}: an example line that does not start with ' * ': {line!r}")
    if current is not None:
        sys.exit(f"{header}: an example without its 'End of example.' line")
    return found


def declares_functions(header):
    with open(header, encoding="utf-8") as f:
        return re.search(r"^CLGPU_API ", f.read(), re.M) is not None


def extract(header, output):
    found = examples(header)
    if len(found) != 1:
        sys.exit(f"{header}: {len(found)} examples, not 1")
    # Strip surrounding blank lines; keep the example's own indentation
    # relative to its least indented line.
    body = found[0]
    while body and not body[0].strip():
        body.pop(0)
    while body and not body[-1].strip():
        body.pop()
    indent = min(len(line) - len(line.lstrip()) for line in body if line.strip())
    with open(output, "w", encoding="utf-8") as f:
        f.write(f"/* Generated from {header} by tests/header_examples.py. */\n")
        for line in body:
            f.write(line[indent:] + "\n")


def check(include_dir, arguments):
    """`arguments`: the built examples, and --not-built=NAME.h for a header
    of an optional component that this configuration does not build."""
    not_built = {a.split("=", 1)[1] for a in arguments if a.startswith("--not-built=")}
    executables = [a for a in arguments if not a.startswith("--not-built=")]
    built = {os.path.basename(path) for path in executables}
    failures = []
    for name in sorted(os.listdir(include_dir)):
        if not name.endswith(".h") or name in not_built:
            continue
        header = os.path.join(include_dir, name)
        count = len(examples(header))
        if declares_functions(header) and count != 1:
            failures.append(f"{name}: {count} examples, not 1")
        stem = "header_example_" + name[:-2]
        if count and stem not in built:
            failures.append(f"{name}: its example is not built (add it to tests/meson.build)")
    for path in executables:
        if not os.path.isfile(path):
            failures.append(f"{path}: not built")
    if failures:
        print("header examples: " + "; ".join(failures))
        return 1
    print(f"header examples: {len(executables)} examples compiled and linked")
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "extract":
        extract(sys.argv[2], sys.argv[3])
    elif len(sys.argv) >= 3 and sys.argv[1] == "check":
        sys.exit(check(sys.argv[2], sys.argv[3:]))
    else:
        sys.exit(__doc__)
