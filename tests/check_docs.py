#!/usr/bin/env python3
"""Checks the relative links of the documentation (standard library only).

Run from the repository root:  python3 tests/check_docs.py [ROOT]

For every markdown file docs/**/*.md and README.md it checks each relative link
(inline `[text](target)`, images, and reference definitions `[id]: target`):
  - the target file or directory exists;
  - a line anchor `#Lx` or `#Lx-Ly` on a link to a repository file lies within
    that file's line count, with x <= y;
  - a heading anchor `#slug` on a link to a .md file (or `#slug` alone, the same
    file) matches a heading of that file, slugged the way GitHub does it.
Links with a scheme (https:, mailto:) are not followed. Links inside fenced
code blocks and inline code spans are ignored.

It also checks tagged figures: a number followed by `<!-- from FILE: PATH -->`
(FILE a JSON file next to the page, in docs/results/raw/ or docs/results/; PATH
dotted keys with [i] indices, e.g. `cublas[0].tflops`) must equal the value in
that file, rounded to the decimals the page shows.

Before the real check it runs a self-test on planted links in a temporary
directory, so that a checker which finds nothing cannot pass silently.
Prints each broken link as file:line: reason, then
`check_docs: N links checked, M broken`; exits 1 if any link is broken
(2 if the self-test fails).
"""
import os
import re
import sys
import tempfile
import unicodedata

LINK_RE = re.compile(r"\]\(\s*(<[^>]*>|[^)\s]*)(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)")
REFDEF_RE = re.compile(r"^\s{0,3}\[(?!\^)[^\]]+\]:\s*(<[^>]*>|\S+)")  # not footnotes [^x]:
CODE_SPAN_RE = re.compile(r"(`+)(.+?)\1")
FENCE_RE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
HEADING_RE = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
HTML_ID_RE = re.compile(r"""<a\s[^>]*(?:name|id)\s*=\s*["']([^"']+)["']""", re.IGNORECASE)
LINE_ANCHOR_RE = re.compile(r"^L(\d+)(?:-L(\d+))?$")
SCHEME_RE = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
FIGURE_RE = re.compile(r"(-?\d[\d,]*(?:\.\d+)?)\s*%?\s*<!--\s*from\s+([^:\s]+):\s*([^\s>]+)\s*-->")
PATH_PART_RE = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def check_figure(root, md_path, shown, source, path):
    """None when the tagged number matches the JSON value, otherwise the reason."""
    import json
    candidates = [os.path.join(os.path.dirname(md_path), source),
                  os.path.join(root, "docs", "results", "raw", source),
                  os.path.join(root, "docs", "results", source)]
    found = next((c for c in candidates if os.path.isfile(c)), None)
    if not found:
        return "figure source not found: %s" % source
    try:
        with open(found, encoding="utf-8") as f:
            value = json.load(f)
        for key, index in PATH_PART_RE.findall(path):
            value = value[int(index)] if index else value[key]
        value = float(value)
    except (ValueError, KeyError, IndexError, TypeError) as e:
        return "figure path %s not in %s (%s)" % (path, source, e)
    text = shown.replace(",", "")
    decimals = len(text.split(".")[1]) if "." in text else 0
    if abs(float(text) - value) > 0.5 * 10 ** -decimals + 1e-9:
        return "figure %s does not match %s %s = %r" % (shown, source, path, value)
    return None


def strip_code_spans(line):
    """Blanks the inside of `code` spans (same length), keeping link syntax around them."""
    return CODE_SPAN_RE.sub(lambda m: m.group(1) + "x" * len(m.group(2)) + m.group(1), line)


def content_lines(text):
    """Yields (line number, line) for lines outside fenced code blocks."""
    fence = None
    for n, line in enumerate(text.splitlines(), 1):
        m = FENCE_RE.match(line)
        if fence is None:
            if m:
                fence = m.group(1)[0] * len(m.group(1))
                continue
            yield n, line
        elif m and m.group(1).startswith(fence):
            fence = None


def github_slug(heading):
    """GitHub's anchor for a heading: markdown removed, lowercase, punctuation other than
    '-' and '_' dropped, each space turned into '-'."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # [text](url) -> text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML tags
    text = text.lower()
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in "-_" or ch == " " or cat[0] in "LMN":
            out.append("-" if ch == " " else ch)
    return "".join(out)


_anchor_cache = {}


def heading_anchors(path):
    if path not in _anchor_cache:
        anchors, seen = set(), {}
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for _, line in content_lines(text):
            m = HEADING_RE.match(line)
            if m:
                slug = github_slug(m.group(2))
                k = seen.get(slug, 0)
                seen[slug] = k + 1
                anchors.add(slug if k == 0 else "%s-%d" % (slug, k))
            anchors.update(HTML_ID_RE.findall(line))
        _anchor_cache[path] = anchors
    return _anchor_cache[path]


_line_cache = {}


def line_count(path):
    if path not in _line_cache:
        with open(path, "rb") as f:
            _line_cache[path] = len(f.read().splitlines())
    return _line_cache[path]


def check_link(root, md_path, target):
    """Returns None if the link is fine, else the reason it is broken."""
    if target.startswith("<") and target.endswith(">"):
        target = target[1:-1]
    path_part, _, fragment = target.partition("#")
    path_part = path_part.split("?", 1)[0]
    if path_part == "":
        dest = md_path  # '#anchor' alone: this file
    else:
        if path_part.startswith("/"):
            dest = os.path.normpath(os.path.join(root, path_part.lstrip("/")))
        else:
            dest = os.path.normpath(os.path.join(os.path.dirname(md_path), path_part))
        if not os.path.exists(dest):
            return "no such file: %s" % path_part
    if not fragment:
        return None
    if os.path.isdir(dest):
        return "anchor #%s on a directory" % fragment
    m = LINE_ANCHOR_RE.match(fragment)
    if m and not dest.endswith(".md"):
        x = int(m.group(1))
        y = int(m.group(2)) if m.group(2) else x
        n = line_count(dest)
        if x < 1 or x > y:
            return "bad line range #%s" % fragment
        if y > n:
            return "#%s beyond the end of %s (%d lines)" % (fragment, os.path.relpath(dest, root), n)
        return None
    if dest.endswith(".md"):
        if fragment.lower() in heading_anchors(dest) or fragment in heading_anchors(dest):
            return None
        return "no heading #%s in %s" % (fragment, os.path.relpath(dest, root))
    return "unsupported anchor #%s on %s" % (fragment, os.path.relpath(dest, root))


def markdown_files(root):
    files = []
    readme = os.path.join(root, "README.md")
    if os.path.isfile(readme):
        files.append(readme)
    for dirpath, dirnames, filenames in os.walk(os.path.join(root, "docs")):
        dirnames.sort()
        files += [os.path.join(dirpath, f) for f in sorted(filenames) if f.endswith(".md")]
    return files


def check_tree(root):
    """Returns (number of links checked, list of 'file:line: reason')."""
    root = os.path.abspath(root)
    checked, broken = 0, []
    for md in markdown_files(root):
        with open(md, encoding="utf-8") as f:
            text = f.read()
        for n, line in content_lines(text):
            plain = strip_code_spans(line)
            targets = [m.group(1) for m in LINK_RE.finditer(plain)]
            m = REFDEF_RE.match(plain)
            if m:
                targets.append(m.group(1))
            for t in targets:
                if not t or SCHEME_RE.match(t.strip("<>")):
                    continue
                checked += 1
                reason = check_link(root, md, t)
                if reason:
                    broken.append("%s:%d: %s (link: %s)" % (os.path.relpath(md, root), n, reason, t))
            for m in FIGURE_RE.finditer(line):
                checked += 1
                reason = check_figure(root, md, m.group(1), m.group(2), m.group(3))
                if reason:
                    broken.append("%s:%d: %s" % (os.path.relpath(md, root), n, reason))
    return checked, broken


def self_test():
    """Plants good and broken links in a temporary tree; the checker must find exactly the broken ones."""
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "docs", "kernels"))
        os.makedirs(os.path.join(tmp, "kernels"))
        with open(os.path.join(tmp, "kernels", "k.cu"), "w") as f:
            f.write("".join("line %d\n" % i for i in range(1, 11)))  # 10 lines
        with open(os.path.join(tmp, "docs", "kernels", "b.md"), "w", encoding="utf-8") as f:
            f.write("# Step 01: B page\n\n## SASS (cuobjdump -sass, sm_90)\n\n## The idea\n\n## The idea\n")
        page = "\n".join([
            "# A page",
            "[ok file](b.md) [ok dir](../kernels/) [ok line](../../kernels/k.cu#L10)",
            "[ok range](../../kernels/k.cu#L2-L9) [`code` text](../../kernels/k.cu#L1)",
            "[ok heading](b.md#sass-cuobjdump--sass-sm_90) [ok dup](b.md#the-idea-1) [ok self](#a-page)",
            "[ok url](https://example.com/x.md#nothing)",
            "`[not a link](missing-in-code.md)`",
            "```",
            "[not a link](missing-in-fence.md)",
            "```",
            "[broken file](missing.md)",
            "[broken line](../../kernels/k.cu#L11)",
            "[broken range](../../kernels/k.cu#L9-L12) [reversed](../../kernels/k.cu#L5-L4)",
            "[broken heading](b.md#no-such-heading) [broken self](#nowhere)",
            "[ref]: ../../kernels/missing.cu",
            "[^note]: a footnote, not a link",
            "ok figure 1,234.5<!-- from f.json: a.b[1] --> and a wrong one 1,234.7<!-- from f.json: a.b[1] -->",
        ]) + "\n"
        with open(os.path.join(tmp, "docs", "kernels", "f.json"), "w") as f:
            f.write('{"a": {"b": [0, 1234.52]}}')
        with open(os.path.join(tmp, "docs", "kernels", "a.md"), "w", encoding="utf-8") as f:
            f.write(page)
        with open(os.path.join(tmp, "README.md"), "w", encoding="utf-8") as f:
            f.write("[ok](docs/kernels/a.md#a-page) [broken](docs/nope.md)\n")
        checked, broken = check_tree(tmp)
        got = sorted(b.split(": ", 1)[0] for b in broken)
        want = sorted(["README.md:1"] + ["docs/kernels/a.md:%d" % n for n in (10, 11, 12, 12, 13, 13, 14, 16)])
        want = [w.replace("/", os.sep) for w in want]
        if checked != 19 or got != want:
            print("check_docs: SELF-TEST FAILED: %d links checked (want 19); broken at %s, want %s"
                  % (checked, got, want))
            for b in broken:
                print("  " + b)
            return False
    _anchor_cache.clear()
    _line_cache.clear()
    return True


def main(argv):
    root = argv[1] if len(argv) > 1 else "."
    if not self_test():
        return 2
    if not os.path.isdir(os.path.join(root, "docs")):
        print("check_docs: no docs/ under %s (run from the repository root)" % os.path.abspath(root))
        return 2
    checked, broken = check_tree(root)
    for b in broken:
        print(b)
    print("check_docs: %d links and tagged figures checked, %d broken" % (checked, len(broken)))
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
