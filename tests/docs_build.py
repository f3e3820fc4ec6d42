#!/usr/bin/env python3
"""Build the API reference (the target docs, docs/meson.build) into a folder
of the test's own and check what it holds.

    docs_build.py DOXYGEN DOXYFILE SOURCE_ROOT WORK_FOLDER

DOXYFILE is the build's configured docs/Doxyfile; it is run as it is, with
only its output folder and warning log moved to WORK_FOLDER (emptied first).
Checked:

- Doxygen succeeds and writes html/index.html, whose main page is README.md
  (the start of its first paragraph);
- every function declared in the headers of include/clgpu (CLGPU_API) has its
  section on its header's page, holding the start of the comment before it
  in the header, which must be a Doxygen comment (`/**`) unless the
  declaration shares the comment of the one right before it;
- the start of every field or enum value comment (`/**<`) is on some page;
- among them clgpu_sort, clgpu_reduce and clgpu_context_create.

Doxygen ignores plain /* */ comments, so a public declaration documented
with one would be missing from the reference: this test says which.
"""
import html
import os
import re
import shutil
import subprocess
import sys

KEY_FUNCTIONS = ("clgpu_sort", "clgpu_reduce", "clgpu_context_create")
# The words of a comment that must appear on its page.
WORDS = 8
FUNCTION = re.compile(r"^CLGPU_API\b[^;{(]*?\b(clgpu_\w+)\s*\(", re.M)
FIELD_COMMENT = re.compile(r"/\*\*<(.*?)\*/", re.S)


def words(text):
    return re.findall(r"[A-Za-z0-9_]+", text)


def page_text(markup):
    markup = re.sub(r"<script.*?</script>", " ", markup, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", markup))


def contains(haystack, needle):
    """Whether the list `needle` is a contiguous part of the list `haystack`."""
    return any(haystack[i:i + len(needle)] == needle
               for i in range(len(haystack) - len(needle) + 1))


def page_name(header):
    """Doxygen's page of a header: sort.h -> sort_8h.html."""
    return header.replace("_", "__").replace(".", "_8") + ".html"


def member_section(markup, name):
    """The text of the detailed section of function `name` on a page."""
    start = markup.find(f">{name}()</h2>")
    if start < 0:
        return None
    end = markup.find('<h2 class="memtitle">', start)
    return page_text(markup[start:end if end >= 0 else len(markup)])


def check_header(header_path, html_dir, failures):
    """Check the functions of one header; returns their names."""
    with open(header_path, encoding="utf-8") as f:
        text = f.read()
    header = os.path.basename(header_path)
    page = os.path.join(html_dir, page_name(header))
    markup = ""
    if os.path.isfile(page):
        with open(page, encoding="utf-8") as f:
            markup = f.read()
    names = []
    for match in FUNCTION.finditer(text):
        name = match.group(1)
        names.append(name)
        before = text[:match.start()]
        if not before.endswith("*/\n"):
            # A declaration right after another shares its comment
            # (clgpu_array_of_strided after clgpu_array_of).
            if not re.search(r"^CLGPU_API\b[^;]*;\n$", before, re.M):
                failures.append(f"{header}: {name}: no comment right before it")
            continue
        comment = before[before.rfind("/*"):]
        if not comment.startswith("/**"):
            failures.append(f"{header}: {name}: its comment opens with /* (Doxygen reads "
                            f"only /** comments)")
            continue
        section = member_section(markup, name)
        if section is None:
            failures.append(f"{header}: {name}: no section on {page_name(header)}")
            continue
        start = words(comment)[:WORDS]
        if not contains(words(section), start):
            failures.append(f"{header}: {name}: its section lacks {' '.join(start)!r}")
    return names


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    doxygen, doxyfile, source_root, work = sys.argv[1:]
    include_dir = os.path.join(source_root, "include", "clgpu")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    log = os.path.join(work, "doxygen-warnings.log")
    with open(os.path.join(work, "Doxyfile"), "w", encoding="utf-8") as f:
        f.write(f'@INCLUDE = "{os.path.abspath(doxyfile)}"\n'
                f'OUTPUT_DIRECTORY = "{os.path.abspath(work)}"\n'
                f'WARN_LOGFILE = "{log}"\n')
    done = subprocess.run([doxygen, "Doxyfile"], cwd=work, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)
    if done.returncode != 0:
        sys.exit(f"docs: doxygen failed ({done.returncode}):\n{done.stdout}")
    html_dir = os.path.join(work, "html")
    index = os.path.join(html_dir, "index.html")
    if not os.path.isfile(index):
        sys.exit(f"docs: doxygen wrote no {index}")

    failures = []
    with open(os.path.join(source_root, "README.md"), encoding="utf-8") as f:
        paragraph = next(line for line in f if line.strip() and not line.startswith("#"))
    readme_start = words(paragraph)[:WORDS]
    with open(index, encoding="utf-8") as f:
        if not contains(words(page_text(f.read())), readme_start):
            failures.append("index.html: not README.md's text")
    headers = sorted(name for name in os.listdir(include_dir) if name.endswith(".h"))
    functions = []
    for header in headers:
        functions += check_header(os.path.join(include_dir, header), html_dir, failures)
    for name in KEY_FUNCTIONS:
        if name not in functions:
            failures.append(f"{name}: not found in {include_dir}")

    # The field and enum value comments, against every page but the header
    # listings (*_source.html), which show every comment whether or not
    # Doxygen took it.
    pages = []
    for name in sorted(os.listdir(html_dir)):
        if name.endswith(".html") and not name.endswith("_source.html"):
            with open(os.path.join(html_dir, name), encoding="utf-8") as f:
                pages.append(words(page_text(f.read())))
    fields = 0
    for header in headers:
        with open(os.path.join(include_dir, header), encoding="utf-8") as f:
            for match in FIELD_COMMENT.finditer(f.read()):
                fields += 1
                start = words(match.group(1))[:WORDS]
                if not any(contains(page, start) for page in pages):
                    failures.append(f"{header}: the comment {' '.join(start)!r} is on no page")

    if failures:
        print("docs: " + "\n  ".join([f"{len(failures)} failures:"] + failures))
        print(f"(doxygen's warnings: {log})")
        return 1
    print(f"docs: {len(functions)} functions and {fields} field and value comments "
          f"documented in {html_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
