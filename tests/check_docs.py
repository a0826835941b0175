#!/usr/bin/env python3
r"""Checks the documentation: links, code markers, tagged figures and the step-page template
(standard library only).

Run from the repository root:  python3 tests/check_docs.py [--fix] [ROOT]

For every markdown file docs/**/*.md and README.md it checks each relative link
(inline `[text](target)`, images, and reference definitions `[id]: target`):
  - the target file or directory exists;
  - a line anchor `#Lx` or `#Lx-Ly` on a link into a code file (C++/CUDA, whose
    comments start with //; Python, shell, CMake, with #) names a marker in its
    title, `[text](path#Lx-Ly "doc:NAME")`, and its lines are exactly that
    marker's region (below). A link text that quotes the lines (`lines 31-39`,
    `line 92`, or only the numbers) must quote the same numbers. On any other
    file a line anchor must lie within the file's line count, with x <= y;
  - a heading anchor `#slug` on a link to a .md file (or `#slug` alone, the same
    file) matches a heading of that file, slugged the way GitHub does it.
Links with a scheme (https:, mailto:) are not followed. Links inside fenced
code blocks and inline code spans are ignored.

Markers. In a code file, a line whose stripped text is exactly the comment
marker `// [doc:NAME]` (`# [doc:NAME]` in Python, shell, CMake; NAME made of
a-z, 0-9 and '-', unique within the file) opens the region NAME on the next
line. The region ends on the line before the closing line `// [/doc:NAME]`
if there is one, else on the line before the first blank line after the
marker (or at the end of the file). Marker lines at either edge of a region
(markers of neighbouring regions) are left out of it. Fails: a malformed
marker (a comment holding `[doc:` or `[/doc:` that is not exactly one), a
name opened twice in a file, a closing line with no opening one before it,
an empty region, a link naming a marker its file does not have, a link
into a code file with a line anchor but no "doc:NAME" title, and a marker
that no page links to or excerpts (every code file of the tree is scanned).

Tagged figures. A number followed by `<!-- from FILE: PATH -->` must equal
the value PATH names in FILE, rounded to the decimals the page shows (commas
and a `%` between number and comment are allowed). FILE is looked up next to
the page, in docs/results/raw/, then in docs/results/ (`raw/x.txt` works too).
  - JSON files: PATH is dotted keys with [i] indices, e.g. `cublas[0].tflops`.
  - Text files (.txt, .log, .csv) under docs/results/raw/: PATH is `/REGEX/`
    (Python syntax, multiline; it may hold spaces but not `-->`); its first
    match in the file, first capture group, is the value, e.g.
    `87.3<!-- from raw/h100-ncu.txt: /sm__throughput.avg.pct_of_peak_sustained_elapsed\s+\S+\s+([\d.]+)/ -->`.
A paragraph, list item or table row that holds tagged figures and a link to a
results file (a target under docs/results/ ending .json, .md, .txt, .log or
.csv) must link, for each FILE its tags read, to a file of the same basename:
a reader who follows the link must land on the file the figure comes from.

Step pages, docs/kernels/NN_name.md and NNx_name.md (not the appendix-*.md):
  - template: the level-2 headings starting `## The idea`, `## The picture`,
    `## What changed against`, `## The arithmetic`, `## Prediction`,
    `## Measured`, `## What limits it next` appear in this order, each once;
    other `##` sections may sit between them; an optional `## Appendix...`
    heading is the last `##` heading. The main text (the top to the Appendix
    heading, or the end) is at most 250 lines;
  - process words: the main text, outside fenced code, code spans, link
    targets, URLs, HTML tags and `<!-- -->` comments, holds no tuning-variant
    number (`variant 703`, `variants 1200-1205`: a number >= 100 right after
    "variant(s)"), no git-hash-like token (7-40 lowercase hex characters with
    a digit and a letter a-f, a word of its own), none of the whole words
    `session`, `TODO` (any case; `TODO-MEASURE(...)` too), no tracker issue
    ("this issue", "an issue", "issue #16"; the hardware's "issue slot",
    "issue rate", "a scheduler issues" are not hit) and not the phrase "the
    build before". These belong in appendices or docs/results/;
  - picture: `## The picture` shows at least one image `![alt](target)` whose
    target is a file under docs/figures/ or docs/results/;
  - diff excerpt: `## What changed against ...` holds exactly one diff excerpt.
The overview, docs/overview.md, gets the same checks on its own list of sections, the step-page template
without `## What changed against` (it compares no two steps): `## The idea`, `## The picture`,
`## The arithmetic`, `## Prediction`, `## Measured`, `## What limits it next`.
Diff excerpts (on any page) are written as
    <!-- diff: OLD NEW -->
    ```diff
    ...
    ```
    <!-- /diff -->
with OLD and NEW repo-relative paths, each optionally `#doc:NAME` (the
marker's region, as for line anchors, marker lines inside it left out), or
`/dev/null` as OLD. The block must equal difflib's unified diff of the two
regions (n=1 line of context, `--- OLD`/`+++ NEW` without the anchors; a
trailing-space difference is ignored) and be 10-40 lines long.

--fix rewrites, in place, the line anchor of every link titled "doc:NAME"
(adding it where the link has none) and the numbers its text quotes, from
the marker, and the body of every diff excerpt (a lone `<!-- diff: OLD NEW -->`
line gets its block and closing comment), then checks as usual. After code
moves, run python3 tests/check_docs.py --fix and commit the pages it changed.

Before the real check it runs a self-test on planted links, markers, figures
and pages in a temporary directory (--self-test runs only that), so that a
checker which finds nothing cannot pass silently. Prints each problem as
file:line: reason, then a count per check and `check_docs: N links and
tagged figures checked, M broken`; exits 1 if anything is broken (2 if the
self-test fails).
"""
import os
import re
import sys
import tempfile
import unicodedata

LINK_RE = re.compile(r"\]\(\s*(<[^>]*>|[^)\s]*)(?:\s+(\"[^\"]*\"|'[^']*'))?\s*\)")
REFDEF_RE = re.compile(r"^\s{0,3}\[(?!\^)[^\]]+\]:\s*(<[^>]*>|\S+)(?:\s+(\"[^\"]*\"|'[^']*'))?")  # not footnotes [^x]:
CODE_SPAN_RE = re.compile(r"(`+)(.+?)\1")
FENCE_RE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
HEADING_RE = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
HTML_ID_RE = re.compile(r"""<a\s[^>]*(?:name|id)\s*=\s*["']([^"']+)["']""", re.IGNORECASE)
LINE_ANCHOR_RE = re.compile(r"^L(\d+)(?:-L(\d+))?$")
SCHEME_RE = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
# PATH: JSON keys, or /REGEX/ (which may hold spaces) for a text file.
FIGURE_RE = re.compile(r"(-?\d[\d,]*(?:\.\d+)?)\s*%?\s*<!--\s*from\s+([^:\s]+):\s*(/.*?/|[^\s>]+)\s*-->")
PATH_PART_RE = re.compile(r"([^.\[\]]+)|\[(\d+)\]")
DOC_TITLE_RE = re.compile(r"^doc:([a-z0-9-]+)$")
MARKER_HINT_RE = re.compile(r"\[/?doc:")
# The line numbers a link text quotes: the whole text ("157-160") or its end ("step 09, lines 82-83").
QUOTED_LINES_RE = re.compile(r"(?:^\s*|\b(lines?)\s+)(\d+)(?:(\s*[–-]\s*)(\d+))?\s*$")
SLASH_COMMENT_EXTS = {".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".cu", ".cuh"}
HASH_COMMENT_EXTS = {".py", ".sh", ".bash", ".cmake", ".yml", ".yaml", ".toml"}


def comment_prefix(path):
    """'//' or '#' for a code file that can hold markers, None for other files."""
    base = os.path.basename(path)
    ext = os.path.splitext(base)[1].lower()
    if ext in SLASH_COMMENT_EXTS:
        return "//"
    if ext in HASH_COMMENT_EXTS or base == "CMakeLists.txt":
        return "#"
    if ext == "" and os.path.isfile(path):
        try:
            with open(path, "rb") as f:
                if f.read(2) == b"#!":  # an executable script
                    return "#"
        except OSError:
            pass
    return None


def code_files(root):
    """Every file of the tree that can hold markers (hidden and build* directories skipped)."""
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith((".", "build"))
                             and d not in ("__pycache__", "node_modules"))
        for f in sorted(filenames):
            path = os.path.join(dirpath, f)
            if comment_prefix(path):
                yield path


_marker_cache = {}


def file_markers(path):
    """(regions, problems) of a code file: regions maps NAME to (marker line, first line, last
    line) of its region; problems lists (line, reason) for broken markers."""
    path = os.path.normpath(path)
    if path in _marker_cache:
        return _marker_cache[path]
    prefix = comment_prefix(path)
    regions, problems = {}, []
    if prefix is None:
        _marker_cache[path] = (regions, problems)
        return regions, problems
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    marker_re = re.compile(re.escape(prefix) + r" \[(/?)doc:([a-z0-9-]+)\]$")
    opens, closes, is_marker = {}, {}, set()
    for n, line in enumerate(lines, 1):
        text = line.strip()
        if not text.startswith(prefix) or not MARKER_HINT_RE.search(text):
            continue
        m = marker_re.match(text)
        if not m:
            problems.append((n, "malformed marker %r: a marker line is exactly '%s [doc:NAME]' or '%s [/doc:NAME]'"
                                " with NAME of a-z, 0-9, '-'" % (text, prefix, prefix)))
            continue
        is_marker.add(n)
        table = closes if m.group(1) else opens
        name = m.group(2)
        if name in table:
            problems.append((n, "duplicate marker %s (also on line %d): names are unique within a file"
                                % (text, table[name])))
            continue
        table[name] = n
    for name, c in closes.items():
        if name not in opens:
            problems.append((c, "closing marker [/doc:%s] without an opening [doc:%s]" % (name, name)))
        elif c < opens[name]:
            problems.append((c, "closing marker [/doc:%s] before its opening on line %d" % (name, opens[name])))
    for name, o in opens.items():
        c = closes.get(name)
        if c is not None and c > o:
            last = c - 1
        else:
            last = next((k - 1 for k in range(o + 1, len(lines) + 1) if not lines[k - 1].strip()), len(lines))
        first = o + 1
        while first <= last and first in is_marker:
            first += 1
        while last >= first and last in is_marker:
            last -= 1
        if first > last:
            problems.append((o, "marker [doc:%s] opens an empty region" % name))
            continue
        regions[name] = (o, first, last)
    _marker_cache[path] = (regions, problems)
    return regions, problems


def quoted_lines(text):
    """The match of the line numbers a link text quotes, or None."""
    return QUOTED_LINES_RE.search(text)


def requote(text, m, first, last):
    """text (or a string of the same length, code spans blanked, that m matched) with the quoted
    lines rewritten to first..last."""
    numbers = "%d" % first if first == last else "%d%s%d" % (first, m.group(3) or "–", last)
    head = text[:m.start(2)]
    if m.group(1):  # "line 5" / "lines 5-7": the word follows the count
        head = text[:m.start(1)] + ("line" if first == last else "lines") + text[m.end(1):m.start(2)]
    return head + numbers + text[m.end(4) if m.group(4) else m.end(2):]


def anchor_link(root, md_path, target, title, text, used, orig_text=None):
    """Checks a link into a code file against its marker; text is the link's text on the target's
    line with code spans blanked (orig_text the same unblanked). Returns (reason or None, fixed
    target, fixed orig_text); the fixed values are None when the marker is unknown. Records the
    marker in used."""
    orig_text = text if orig_text is None else orig_text
    bare = target[1:-1] if target.startswith("<") and target.endswith(">") else target
    path_part, _, fragment = bare.partition("#")
    dest = os.path.normpath(os.path.join(root, path_part.lstrip("/")) if path_part.startswith("/")
                            else os.path.join(os.path.dirname(md_path), path_part))
    shown = os.path.relpath(dest, root)
    m = DOC_TITLE_RE.match(title[1:-1]) if title else None
    if not m:
        return ("line anchor into a code file without a \"doc:NAME\" title naming its marker (see tests/check_docs.py)",
                None, None)
    name = m.group(1)
    regions, _ = file_markers(dest)
    if name not in regions:
        return ("no marker [doc:%s] in %s" % (name, shown), None, None)
    used.add((dest, name))
    marker, first, last = regions[name]
    want = "L%d" % first if first == last else "L%d-L%d" % (first, last)
    fixed = path_part + "#" + want
    if target.startswith("<"):
        fixed = "<" + fixed + ">"
    q = quoted_lines(text)
    fixed_text = requote(orig_text, q, first, last) if q else orig_text
    if fragment != want:
        return ("#%s is not the region of marker [doc:%s] (%s:%d), which is #%s; run tests/check_docs.py --fix"
                % (fragment or "(no line anchor)", name, shown, marker, want), fixed, fixed_text)
    if fixed_text != orig_text:
        return ("link text %r quotes other lines than its marker [doc:%s] (#%s); run tests/check_docs.py --fix"
                % (orig_text.strip(), name, want), fixed, fixed_text)
    return None, fixed, fixed_text


def link_text_before(plain, start):
    """The part of a link's text on its target's line: from the last '[' (or ')', or the line's
    start when the text began on an earlier line) to the target."""
    cut = max(plain.rfind("[", 0, start), plain.rfind(")", 0, start))
    return cut + 1, start


TEXT_SOURCE_EXTS = (".txt", ".log", ".csv")  # raw files a /REGEX/ tag may read


def regex_value(found, source, path):
    """The value a /REGEX/ tag names in a raw text file (first match, first group); ValueError if none."""
    try:
        pattern = re.compile(path[1:-1], re.MULTILINE)
    except re.error as e:
        raise ValueError("bad regex %s (%s)" % (path, e))
    if pattern.groups < 1:
        raise ValueError("regex %s has no capture group" % path)
    with open(found, encoding="utf-8", errors="replace") as f:
        m = pattern.search(f.read())
    if not m or m.group(1) is None:
        raise ValueError("regex %s matches nothing in %s" % (path, source))
    return float(m.group(1).replace(",", ""))


def figure_file(root, md_path, source):
    """The file a tag `<!-- from SOURCE: ... -->` reads: next to the page, under docs/results/raw/, or under
    docs/results/ (the first that exists), or None."""
    candidates = [os.path.join(os.path.dirname(md_path), source),
                  os.path.join(root, "docs", "results", "raw", source),
                  os.path.join(root, "docs", "results", source)]
    return next((os.path.abspath(c) for c in candidates if os.path.isfile(c)), None)


def check_figure(root, md_path, shown, source, path):
    """None when the tagged number matches the value in its file (JSON keys or /REGEX/), otherwise the reason."""
    import json
    found = figure_file(root, md_path, source)
    if not found:
        return "figure source not found: %s" % source
    is_regex = len(path) > 2 and path.startswith("/") and path.endswith("/")
    raw = os.path.join(os.path.abspath(root), "docs", "results", "raw") + os.sep
    if is_regex != (found.lower().endswith(TEXT_SOURCE_EXTS) and os.path.abspath(found).startswith(raw)):
        return ("figure %s %s: a /REGEX/ tag reads a .txt, .log or .csv file under docs/results/raw/, and only"
                " those; JSON files take dotted keys" % (source, path))
    try:
        if is_regex:
            value = regex_value(found, source, path)
        else:
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
    if m and comment_prefix(dest):
        return None  # a code file: anchor_link checks the lines against the link's marker
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


def line_links(line):
    """The line with code spans blanked, and for each link on it (target, title with its quotes or
    None, target span, span of the link's text on this line)."""
    plain = strip_code_spans(line)
    links = [(m.group(1), m.group(2), m.span(1), link_text_before(plain, m.start()))
             for m in LINK_RE.finditer(plain)]
    m = REFDEF_RE.match(plain)
    if m:
        links.append((m.group(1), m.group(2), m.span(1), (0, 0)))
    return plain, [l for l in links if l[0] and not SCHEME_RE.match(l[0].strip("<>"))]


def is_doc_title(title):
    return bool(title and DOC_TITLE_RE.match(title[1:-1]))


def is_code_link(root, md_path, target, title):
    """True for a link into a code file that carries a line anchor or a "doc:NAME" title."""
    bare = target[1:-1] if target.startswith("<") and target.endswith(">") else target
    path_part, _, fragment = bare.partition("#")
    if not path_part:
        return False
    dest = (os.path.join(root, path_part.lstrip("/")) if path_part.startswith("/")
            else os.path.join(os.path.dirname(md_path), path_part))
    return (os.path.isfile(dest) and comment_prefix(dest) is not None
            and (bool(LINE_ANCHOR_RE.match(fragment)) or is_doc_title(title)))


GUIDE_HEADING = "## Adding a kernel"  # the README's guide, whose code names must exist in the code
GUIDE_NAME_RE = re.compile(r"^(?:[A-Za-z_]\w*::)*([A-Za-z_]\w*)(?:\(\))?$")  # sgemm::launch_checked, KernelSpec
GUIDE_SOURCES = ("kernels", "runner", "tests", "scripts", "cmake", "CMakeLists.txt")


def guide_spans(readme):
    """(line number, text) of each code span in the README's guide section."""
    spans, inside = [], False
    with open(readme, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.startswith("## "):
                inside = line.strip() == GUIDE_HEADING
            elif inside:
                spans += [(n, m.group(1)) for m in re.finditer(r"`([^`]+)`", line)]
    return spans


def source_words(root):
    """Every identifier-like word of the code, scripts and build files, outside C++ comments (a comment
    may still name what is gone) and outside this checker (its self-test plants missing names)."""
    words, me = set(), os.path.abspath(__file__)
    for entry in GUIDE_SOURCES:
        top = os.path.join(root, entry)
        paths = [top] if os.path.isfile(top) else [os.path.join(d, f) for d, _, fs in os.walk(top) for f in fs]
        for path in paths:
            if os.path.abspath(path) == me:
                continue
            try:
                with open(path, encoding="utf-8") as f:
                    text = f.read()
            except (UnicodeDecodeError, OSError):
                continue
            if path.endswith((".cu", ".cuh", ".h", ".cpp")):
                text = re.sub(r"//[^\n]*|/\*.*?\*/", " ", text, flags=re.S)
            words.update(re.findall(r"[A-Za-z_]\w*", text))
    return words


def guide_name(text):
    """The name a code span of the guide refers to, or None: `sgemm::fits_int_tiles<BM, BN, BK>` ->
    fits_int_tiles, `.needs_sm90a = true` -> needs_sm90a (a field), `KernelSpec` -> KernelSpec."""
    m = GUIDE_NAME_RE.match(text) or re.match(r"^(?:[A-Za-z_]\w*::)*([A-Za-z_]\w*)<", text) or \
        re.match(r"^\.([A-Za-z_]\w*)\s*=", text)
    return m.group(1) if m else None


def check_guide(root):
    """The README's guide may name only what exists: each code span that is a C++ name (sgemm::x, x())
    must occur as a word in the sources, each plain relative path must exist. Returns 'file:line: reason's."""
    readme = os.path.join(root, "README.md")
    if not os.path.isfile(readme):
        return []
    spans, words, broken = guide_spans(readme), None, []
    for n, text in spans:
        name = guide_name(text)
        if name:
            words = source_words(root) if words is None else words
            if name not in words:
                broken.append("README.md:%d: the guide names `%s`, which no source defines or uses" % (n, text))
        elif "/" in text and " " not in text and not re.search(r"NN|<|\*|\.\.\.", text) and \
                not os.path.exists(os.path.join(root, text.rstrip("/"))):
            broken.append("README.md:%d: the guide names the path `%s`, which does not exist" % (n, text))
    return broken


# ---- Step pages: template, process words, pictures, diff excerpts; tags against link texts ----

TEMPLATE = ("The idea", "The picture", "What changed against", "The arithmetic", "Prediction", "Measured",
            "What limits it next")  # the level-2 headings of a step page start so, in this order
APPENDIX = "Appendix"
MAIN_TEXT_MAX = 250
STEP_PAGE_RE = re.compile(r"^\d\d[a-z]?_[^/\\]+\.md$")  # docs/kernels/09_x.md, 09a_x.md; not appendix-*.md
# The overview's sections: the step-page template less the one that compares a step with the one before.
OVERVIEW_TEMPLATE = tuple(t for t in TEMPLATE if t != "What changed against")
IMAGE_RE = re.compile(r"!\[[^\]]*\]\(\s*(<[^>]*>|[^)\s]*)")
# Process words, found in the main text with code, comments, link targets and tags blanked.
VARIANT_RE = re.compile(r"\bvariants?\s+#?\s*(\d+(?:\s*(?:[-–—,/&]|and|or|to)\s*#?\d+)*)", re.IGNORECASE)
HASH_RE = re.compile(r"(?<!\w)(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}(?!\w)")
# "issue" is also the hardware's word (issue slots, a scheduler issues): only the tracker's sense is hit,
# an issue named as a thing ("this issue", "issue #16") and not followed by a hardware noun.
PROCESS_WORD_RE = re.compile(
    r"\b(?:the|this|an|that)\s+issue\b(?![\s-]*(?:slots?|rates?|cycles?|width|bound|queues?|stages?|ports?"
    r"|limits?|efficiency|ceiling))|\bissue\s+#\d+|\b(?:session|TODO)\b|\bthe\s+build\s+before\b",
    re.IGNORECASE)
HTML_COMMENT_RE = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
HTML_TAG_RE = re.compile(r"</?[A-Za-z][^>\n]*>")
URL_RE = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://\S+")
LINK_TARGET_RE = re.compile(r"\]\([^)\n]*\)")
REFDEF_LINE_RE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*\S.*$", re.MULTILINE)
# Diff excerpts: the opening comment, the fence of the block, the closing comment.
DIFF_OPEN_RE = re.compile(r"^\s*<!--\s*diff:\s*(\S+)\s+(\S+)\s*-->\s*$")
DIFF_FENCE_RE = re.compile(r"^(`{3,})diff\s*$")
DIFF_CLOSE = "<!-- /diff -->"
DIFF_MIN, DIFF_MAX = 10, 40
RESULTS_LINK_EXTS = (".json", ".md") + TEXT_SOURCE_EXTS
LIST_ITEM_RE = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s")


def is_step_page(root, md):
    return (os.path.dirname(os.path.abspath(md)) == os.path.join(os.path.abspath(root), "docs", "kernels")
            and bool(STEP_PAGE_RE.match(os.path.basename(md))))


def is_overview(root, md):
    return os.path.abspath(md) == os.path.join(os.path.abspath(root), "docs", "overview.md")


def level2_headings(text):
    """(line number, title) of each '## ' heading outside fenced code."""
    out = []
    for n, line in content_lines(text):
        m = HEADING_RE.match(line)
        if m and m.group(1) == "##":
            out.append((n, m.group(2)))
    return out


def main_text_end(text, headings):
    """The last line of the main text: the line before the '## Appendix' heading, or the last line."""
    appendix = [n for n, title in headings if title.startswith(APPENDIX)]
    return appendix[0] - 1 if appendix else len(text.splitlines())


def section_lines(text, headings, prefix):
    """(first, last) line numbers of the body of the first '## ' section whose title starts with prefix."""
    for i, (n, title) in enumerate(headings):
        if title.startswith(prefix):
            end = headings[i + 1][0] - 1 if i + 1 < len(headings) else len(text.splitlines())
            return n + 1, end
    return None


def check_template(text, headings, template=TEMPLATE):
    """(line, reason) for each way the page departs from its template (the step pages' or the overview's)."""
    problems, found = [], []
    for want in template:
        hits = [n for n, title in headings if title.startswith(want)]
        if not hits:
            problems.append((1, "the template's section '## %s' is missing (sections, in order: %s)"
                                % (want, "; ".join(template))))
            continue
        problems += [(n, "section '## %s' a second time (first on line %d)" % (want, hits[0])) for n in hits[1:]]
        found.append((hits[0], want))
    for (n0, a), (n1, b) in zip(found, found[1:]):
        if n1 < n0:
            problems.append((n0, "section '## %s' comes after '## %s' (line %d); the template puts it before"
                                 % (a, b, n1)))
    appendix = [n for n, title in headings if title.startswith(APPENDIX)]
    problems += [(n, "a second '## %s' section (first on line %d)" % (APPENDIX, appendix[0])) for n in appendix[1:]]
    if appendix and headings[-1][0] != appendix[0]:
        problems.append((appendix[0], "'## %s' must be the last '## ' section (followed by '## %s')"
                                      % (APPENDIX, [t for n, t in headings if n > appendix[0]][0])))
    end = main_text_end(text, headings)
    if end > MAIN_TEXT_MAX:
        problems.append((MAIN_TEXT_MAX + 1, "main text is %d lines, more than %d: move detail to '## %s' or an "
                                            "appendix-*.md page" % (end, MAIN_TEXT_MAX, APPENDIX)))
    return problems


def blank(match):
    """A match's text with everything but line breaks turned into spaces (offsets and lines kept)."""
    return re.sub(r"[^\n]", " ", match.group(0))


def prose_only(text):
    """text with fenced code, code spans, comments, HTML tags, link targets and URLs blanked, same
    offsets: what a reader reads as prose."""
    lines = text.splitlines(keepends=True)
    prose = {n for n, _ in content_lines(text)}
    lines = [l if n in prose else re.sub(r"[^\n]", " ", l) for n, l in enumerate(lines, 1)]
    text = "".join(re.sub(r"(`+)(.+?)\1", blank, l) for l in lines)
    for pattern in (HTML_COMMENT_RE, HTML_TAG_RE, LINK_TARGET_RE, REFDEF_LINE_RE, URL_RE):
        text = pattern.sub(blank, text)
    return text


def process_words(text):
    """(line, word) for each process word of the prose of text (see the docstring)."""
    prose = prose_only(text)
    hits = []
    for m in VARIANT_RE.finditer(prose):
        if any(int(x) >= 100 for x in re.findall(r"\d+", m.group(1))):
            hits.append((m.start(), m.group(0)))
    hits += [(m.start(), m.group(0)) for m in HASH_RE.finditer(prose)]
    hits += [(m.start(), m.group(0)) for m in PROCESS_WORD_RE.finditer(prose)]
    return sorted((prose.count("\n", 0, start) + 1, " ".join(word.split())) for start, word in hits)


def check_picture(root, md, text, headings):
    """None when '## The picture' shows an image from docs/figures/ or docs/results/, else the reason."""
    span = section_lines(text, headings, TEMPLATE[1])
    if span is None:
        return None  # the template check reports the missing section
    dirs = [os.path.join(os.path.abspath(root), "docs", d) + os.sep for d in ("figures", "results")]
    for n, line in content_lines(text):
        if span[0] <= n <= span[1]:
            for m in IMAGE_RE.finditer(strip_code_spans(line)):
                target = m.group(1).strip("<>").partition("#")[0]
                dest = os.path.abspath(os.path.join(os.path.dirname(md), target))
                if os.path.isfile(dest) and dest.startswith(tuple(dirs)):
                    return None
    return "'## %s' shows no image of docs/figures/ or docs/results/ (![alt](../figures/NAME.svg))" % TEMPLATE[1]


def diff_blocks(lines):
    """The diff excerpts of a page's lines (no line ends), outside fenced code: for each, a dict with
    line (1-based line of the opening comment), old, new, and the 0-based indices fence (opening
    fence or None), end (closing fence or None) and close (the '<!-- /diff -->' line or None)."""
    blocks, fence, i = [], None, 0
    while i < len(lines):
        line = lines[i]
        m = FENCE_RE.match(line)
        if fence is not None:
            if m and m.group(1).startswith(fence):
                fence = None
        elif DIFF_OPEN_RE.match(line):
            o = DIFF_OPEN_RE.match(line)
            b = {"line": i + 1, "old": o.group(1), "new": o.group(2), "fence": None, "end": None, "close": None}
            f = DIFF_FENCE_RE.match(lines[i + 1]) if i + 1 < len(lines) else None
            if f:
                b["fence"] = i + 1
                b["end"] = next((k for k in range(i + 2, len(lines)) if lines[k].strip() == f.group(1)), None)
                if b["end"] is not None and b["end"] + 1 < len(lines) and lines[b["end"] + 1].strip() == DIFF_CLOSE:
                    b["close"] = b["end"] + 1
                i = b["close"] if b["close"] is not None else (b["end"] if b["end"] is not None else i + 1)
            blocks.append(b)
        elif m:
            fence = m.group(1)[0] * len(m.group(1))
        i += 1
    return blocks


def region_text(root, spec, used):
    """(path as shown, lines) of an excerpt's OLD or NEW: '/dev/null', a repo-relative path, or
    path#doc:NAME (the marker's region, marker lines inside it left out). ValueError if unknown."""
    if spec == "/dev/null":
        return spec, []
    path, _, fragment = spec.partition("#")
    dest = os.path.normpath(os.path.join(os.path.abspath(root), path))
    if not os.path.isfile(dest):
        raise ValueError("no such file: %s" % path)
    with open(dest, encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    first, last = 1, len(lines)
    if fragment:
        m = re.match(r"^doc:([a-z0-9-]+)$", fragment)
        if not m:
            raise ValueError("%s: an excerpt's anchor is #doc:NAME" % spec)
        regions, _ = file_markers(dest)
        if m.group(1) not in regions:
            raise ValueError("no marker [doc:%s] in %s" % (m.group(1), path))
        used.add((dest, m.group(1)))
        _, first, last = regions[m.group(1)]
    prefix = comment_prefix(dest)
    marker = re.compile(re.escape(prefix) + r" \[/?doc:[a-z0-9-]+\]$") if prefix else None
    return path, [l for l in lines[first - 1:last] if not (marker and marker.match(l.strip()))]


def excerpt(root, old, new, used):
    """The unified diff (n=1) of an excerpt's two regions, as lines; ValueError for an unknown region."""
    import difflib
    old_name, old_lines = region_text(root, old, used)
    new_name, new_lines = region_text(root, new, used)
    return list(difflib.unified_diff(old_lines, new_lines, fromfile=old_name, tofile=new_name, n=1, lineterm=""))


def check_diffs(root, text, headings, step_page, used):
    """(line, reason) for each stale, malformed or ill-sized diff excerpt, and on a step page for a
    'What changed' section without exactly one excerpt."""
    problems, lines = [], text.splitlines()
    blocks = diff_blocks(lines)
    for b in blocks:
        what = "diff excerpt %s -> %s" % (b["old"], b["new"])
        try:
            want = excerpt(root, b["old"], b["new"], used)
        except ValueError as e:
            problems.append((b["line"], "%s: %s" % (what, e)))
            continue
        if b["fence"] is None or b["end"] is None or b["close"] is None:
            problems.append((b["line"], "%s: not followed by a ```diff block and '%s'; run tests/check_docs.py --fix"
                                        % (what, DIFF_CLOSE)))
            continue
        if not DIFF_MIN <= len(want) <= DIFF_MAX:
            problems.append((b["line"], "%s is %d lines, not %d-%d: mark regions that carry the step's idea"
                                        % (what, len(want), DIFF_MIN, DIFF_MAX)))
        if [l.rstrip() for l in lines[b["fence"] + 1:b["end"]]] != [l.rstrip() for l in want]:
            problems.append((b["line"], "%s is stale (not the diff of its regions); run tests/check_docs.py --fix"
                                        % what))
    span = section_lines(text, headings, TEMPLATE[2]) if step_page else None
    if span:
        inside = [b["line"] for b in blocks if span[0] <= b["line"] <= span[1]]
        if len(inside) != 1:
            problems.append((inside[1] if inside else span[0] - 1,
                             "'## %s' holds %d diff excerpts, not one (<!-- diff: OLD NEW --> then --fix)"
                             % (TEMPLATE[2], len(inside))))
    return problems


def fix_diffs(root):
    """Rewrites the body of every diff excerpt from its regions (adding the block and the closing
    comment where missing). Returns the number of excerpts rewritten."""
    root = os.path.abspath(root)
    rewritten = 0
    for md in markdown_files(root):
        with open(md, encoding="utf-8", newline="") as f:
            text = f.read()
        lines = text.splitlines()
        changed = False
        for b in reversed(diff_blocks(lines)):
            try:
                want = excerpt(root, b["old"], b["new"], set())
            except ValueError:
                continue  # the check reports it
            if b["fence"] is not None and b["end"] is None:
                continue  # an unclosed ```diff fence: the check reports it; a new block would nest in it
            fence = "`" * max([3] + [len(l) - len(l.lstrip("`")) + 1 for l in want if l.startswith("```")])
            if b["fence"] is None:
                new, start, stop = [fence + "diff"] + want + [fence, DIFF_CLOSE], b["line"], b["line"]
            else:
                new = want if b["close"] is not None else want + [lines[b["end"]], DIFF_CLOSE]
                start, stop = b["fence"] + 1, (b["end"] if b["close"] is not None else b["end"] + 1)
                if [l.rstrip() for l in lines[start:stop]] == [l.rstrip() for l in new]:
                    continue
            lines[start:stop] = new
            rewritten += 1
            changed = True
        if changed:
            eol = "\r\n" if "\r\n" in text else "\n"
            with open(md, "w", encoding="utf-8", newline="") as f:
                f.write(eol.join(lines) + (eol if text.endswith(("\n", "\r")) else ""))
    return rewritten


def text_units(text):
    """Lists of (line number, line): the paragraphs, list items, headings and table rows of text,
    outside fenced code."""
    units, unit, fence = [], [], None
    for n, line in enumerate(text.splitlines(), 1):
        m = FENCE_RE.match(line)
        if fence is not None:
            if m and m.group(1).startswith(fence):
                fence = None
            continue
        starts = m or not line.strip() or HEADING_RE.match(line) or line.lstrip().startswith("|") or \
            LIST_ITEM_RE.match(line)
        if starts and unit:
            units.append(unit)
            unit = []
        if m:
            fence = m.group(1)[0] * len(m.group(1))
        elif line.strip():
            unit.append((n, line))
            if HEADING_RE.match(line) or line.lstrip().startswith("|"):
                units.append(unit)
                unit = []
    if unit:
        units.append(unit)
    return units


def check_tag_links(root, md, text):
    """(line, reason) for each FILE that tags of a paragraph or table row read while the paragraph's
    links to results files name none of that basename."""
    results = os.path.join(os.path.abspath(root), "docs", "results") + os.sep
    problems = []
    for unit in text_units(text):
        linked, tags = [], []
        for n, line in unit:
            for t, _, _, _ in line_links(line)[1]:
                path = t.strip("<>").partition("#")[0].split("?", 1)[0]
                dest = os.path.abspath(os.path.join(os.path.dirname(md), path)) if path else ""
                if dest.startswith(results) and dest.lower().endswith(RESULTS_LINK_EXTS):
                    linked.append(dest)
            # The file itself, not its name: h100-x/run.json and h200-x/run.json are different files.
            tags += [(n, m.group(2), figure_file(root, md, m.group(2))) for m in FIGURE_RE.finditer(line)]
        if not linked:
            continue
        seen = set()
        for n, source, found in tags:
            if found is not None and found not in linked and found not in seen:
                seen.add(found)
                names = sorted(set(os.path.relpath(d, results) for d in linked))
                problems.append((n, "the link names %s but the figure reads %s: link the file the figures come "
                                    "from" % (", ".join(names), os.path.relpath(found, results))))
    return problems


def check_page(root, md, text, used):
    """(check, line, reason) for the page checks of one markdown file."""
    headings, step_page, overview = level2_headings(text), is_step_page(root, md), is_overview(root, md)
    problems = [("diff",) + p for p in check_diffs(root, text, headings, step_page, used)]
    problems += [("link vs tag",) + p for p in check_tag_links(root, md, text)]
    if not step_page and not overview:
        return problems
    problems += [("template",) + p for p in check_template(text, headings, OVERVIEW_TEMPLATE if overview else TEMPLATE)]
    picture = check_picture(root, md, text, headings)
    if picture:
        span = section_lines(text, headings, TEMPLATE[1])
        problems.append(("picture", span[0] - 1, picture))
    main = "\n".join(text.splitlines()[:main_text_end(text, headings)]) + "\n"
    problems += [("process words", n, "process word %r in the main text: it belongs in an appendix or "
                                      "docs/results/" % word) for n, word in process_words(main)]
    return problems


CHECKS = ("links", "markers", "figures", "guide", "template", "process words", "picture", "diff", "link vs tag")


def check_tree(root, tally=None):
    """Returns (number of links and figures checked, list of 'file:line: reason'). tally, if given,
    gets for each check of CHECKS the list of files of its problems, one entry per problem."""
    root = os.path.abspath(root)
    checked, broken, used = 0, [], set()
    tally = {} if tally is None else tally

    def add(check, rel, n, reason):
        broken.append("%s:%d: %s" % (rel, n, reason))
        tally.setdefault(check, []).append(rel)

    for md in markdown_files(root):
        with open(md, encoding="utf-8") as f:
            text = f.read()
        rel = os.path.relpath(md, root)
        for n, line in content_lines(text):
            plain, links = line_links(line)
            for t, title, _, (xs, xe) in links:
                checked += 1
                reason = check_link(root, md, t)
                if not reason and is_code_link(root, md, t, title):
                    reason = anchor_link(root, md, t, title, plain[xs:xe], used, line[xs:xe])[0]
                elif not reason and is_doc_title(title):
                    reason = "a \"doc:NAME\" title on a link that does not go into a code file"
                if reason:
                    add("links", rel, n, "%s (link: %s)" % (reason, t))
            for m in FIGURE_RE.finditer(line):
                checked += 1
                reason = check_figure(root, md, m.group(1), m.group(2), m.group(3))
                if reason:
                    add("figures", rel, n, reason)
        for check, n, reason in check_page(root, md, text, used):
            add(check, rel, n, reason)
    for path in code_files(root):
        regions, problems = file_markers(path)
        rel = os.path.relpath(path, root)
        for n, reason in problems:
            add("markers", rel, n, reason)
        for name, (marker, _, _) in sorted(regions.items(), key=lambda kv: kv[1]):
            if (os.path.normpath(path), name) not in used:
                add("markers", rel, marker, "marker [doc:%s] is linked from no page and excerpted by none: remove "
                                            "it, or link to it" % name)
    for line in check_guide(root):
        rel, n, reason = line.split(":", 2)
        add("guide", rel, int(n), reason.strip())
    return checked, broken


def fix_tree(root):
    """Rewrites, in place, the line anchor (and the quoted lines of the text) of every link titled
    "doc:NAME" from its marker. Returns the number of links rewritten."""
    root = os.path.abspath(root)
    rewritten = 0
    for md in markdown_files(root):
        with open(md, encoding="utf-8", newline="") as f:
            text = f.read()
        lines = text.splitlines(keepends=True)
        changed = False
        for n, line in content_lines(text):
            plain, links = line_links(line)
            new = line
            for t, title, (ts, te), (xs, xe) in reversed(links):
                if check_link(root, md, t) or not is_code_link(root, md, t, title):
                    continue
                _, fixed, fixed_text = anchor_link(root, md, t, title, plain[xs:xe], set(), line[xs:xe])
                if fixed is not None and (fixed != t or fixed_text != line[xs:xe]):
                    new = new[:xs] + fixed_text + new[xe:ts] + fixed + new[te:]
                    rewritten += 1
            if new != line:
                lines[n - 1] = new + lines[n - 1][len(line):]
                changed = True
        if changed:
            with open(md, "w", encoding="utf-8", newline="") as f:
                f.write("".join(lines))
    _anchor_cache.clear()
    return rewritten


def _write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(text)


def clear_caches():
    _anchor_cache.clear()
    _line_cache.clear()
    _marker_cache.clear()


def _expect(what, broken, want):
    """want: (file:line, words the reason must hold) for each broken link, in any order."""
    got = sorted(broken)
    ok = len(got) == len(want)
    for (loc, words) in sorted(want):
        loc = loc.replace("/", os.sep)
        hit = next((b for b in got if b.startswith(loc + ": ") and all(w in b for w in words)), None)
        if hit is None:
            ok = False
        else:
            got.remove(hit)
    if not ok:
        print("check_docs: SELF-TEST FAILED (%s): want %s; got:" % (what, sorted(want)))
        for b in broken:
            print("  " + b)
    return ok


def self_test_markers():
    """Plants markers and links to them: correct links pass; code moved under a page fails until
    --fix rewrites the page; unknown, untitled, dead, duplicate and malformed markers fail."""
    with tempfile.TemporaryDirectory() as tmp:
        code = "\n".join([
            "#include <cstdio>",     # 1
            "",                      # 2
            "// [doc:setup]",        # 3
            "// [doc:first]",        # 4
            "int a = 0;",            # 5   first: 5 (closed; markers at a region's edges are left out)
            "// [/doc:first]",       # 6
            "// [doc:second]",       # 7
            "int b = 1;",            # 8   second: 8; setup: 5-8 (ends before the blank line)
            "// [/doc:second]",      # 9
            "",                      # 10
            "void f() {",            # 11
            "    // [doc:loop]",     # 12
            "    for (;;) {",        # 13
            "",                      # 14
            "        g();",          # 15
            "    }",                 # 16  loop: 13-16 (closed, blank line inside)
            "    // [/doc:loop]",    # 17
            "    // [doc:tail]",     # 18
            "    h();",              # 19  tail: 19 (closed before the next line)
            "    // [/doc:tail]",    # 20
            "}",                     # 21
        ]) + "\n"
        _write(os.path.join(tmp, "kernels", "m.cu"), code)
        _write(os.path.join(tmp, "scripts", "tool.py"), "import os\n# [doc:main]\nprint(os.sep)\n")  # main: 3 (EOF)
        page = os.path.join(tmp, "docs", "p.md")
        _write(page, "\n".join([
            "# P",
            "[setup](../kernels/m.cu#L5-L8 \"doc:setup\") and [lines 13–16](../kernels/m.cu#L13-L16 \"doc:loop\")",
            "[the call](../kernels/m.cu#L19 \"doc:tail\") [the print](../scripts/tool.py#L3 \"doc:main\")",
            "[the loop, again](../kernels/m.cu#L13-L16 \"doc:loop\") [a](../kernels/m.cu#L5 \"doc:first\")",
            "[b](../kernels/m.cu#L8 \"doc:second\")",
        ]) + "\n")
        clear_caches()
        checked, broken = check_tree(tmp)
        if not _expect("correct marker links", broken, []) or checked != 7:
            return False
        # Code moves: two lines inserted above the markers of m.cu, the page not updated.
        _write(os.path.join(tmp, "kernels", "m.cu"), "// one\n// two\n" + code)
        clear_caches()
        _, broken = check_tree(tmp)
        if not _expect("code moved, page not updated", broken, [
                ("docs/p.md:2", ("[doc:setup]", "#L7-L10", "--fix")), ("docs/p.md:2", ("[doc:loop]", "#L15-L18", "--fix")),
                ("docs/p.md:3", ("[doc:tail]", "#L21", "--fix")), ("docs/p.md:4", ("[doc:loop]", "#L15-L18", "--fix")),
                ("docs/p.md:4", ("[doc:first]", "#L7", "--fix")), ("docs/p.md:5", ("[doc:second]", "#L10", "--fix"))]):
            return False
        rewritten = fix_tree(tmp)
        clear_caches()
        _, broken = check_tree(tmp)
        with open(page, encoding="utf-8") as f:
            line2 = f.read().splitlines()[1]
        if (not _expect("after --fix", broken, []) or rewritten != 6 or line2 !=
                "[setup](../kernels/m.cu#L7-L10 \"doc:setup\") and [lines 15–18](../kernels/m.cu#L15-L18 \"doc:loop\")"):
            print("check_docs: SELF-TEST FAILED (--fix): %d links rewritten (want 6), line 2 now %r" % (rewritten, line2))
            return False
        # Broken markers and links.
        _write(os.path.join(tmp, "kernels", "bad.cu"), "\n".join([
            "// [doc:dup]",          # 1
            "int x;",                # 2
            "",                      # 3
            "// [doc:dup]",          # 4   the name again
            "int y;",                # 5
            "",                      # 6
            "// [doc:Bad_Name]",     # 7   malformed
            "int z;",                # 8
            "// [/doc:orphan]",      # 9   closes nothing
            "// [doc:empty]",        # 10  nothing before the blank line
            "",                      # 11
            "// [doc:dead]",         # 12  no page links to it
            "int w;",                # 13
            "// [/doc:late]",        # 14  closes before it opens
            "// [doc:late]",         # 15
            "int v;",                # 16
        ]) + "\n")
        _write(os.path.join(tmp, "docs", "q.md"), "\n".join([
            "# Q",
            "[unknown](../kernels/m.cu#L7 \"doc:nope\")",
            "[untitled](../kernels/m.cu#L7-L10)",
            "[other title](../kernels/m.cu#L7-L10 \"the setup\")",
            "[wrong quote, lines 7–11](../kernels/m.cu#L7-L10 \"doc:setup\")",
            "[dup](../kernels/bad.cu#L2 \"doc:dup\")",
            "[not code](p.md \"doc:setup\")",
        ]) + "\n")
        clear_caches()
        _, broken = check_tree(tmp)
        if not _expect("broken markers and links", broken, [
                ("docs/q.md:2", ("no marker [doc:nope]",)), ("docs/q.md:3", ("doc:NAME\" title",)),
                ("docs/q.md:4", ("doc:NAME\" title",)), ("docs/q.md:5", ("quotes other lines",)),
                ("docs/q.md:7", ("not go into a code file",)), ("kernels/bad.cu:4", ("duplicate marker",)),
                ("kernels/bad.cu:7", ("malformed marker",)), ("kernels/bad.cu:9", ("without an opening",)),
                ("kernels/bad.cu:10", ("empty region",)), ("kernels/bad.cu:12", ("[doc:dead]", "linked from no page")),
                ("kernels/bad.cu:14", ("before its opening",)), ("kernels/bad.cu:15", ("[doc:late]", "linked from no page"))]):
            return False
    clear_caches()
    return True


def self_test_pages():
    """Plants step pages: a good one passes (after --fix writes its diff excerpt); a stale figure,
    a link naming another results file, a missing section, a stale excerpt, a variant number, a
    too-long main text and the other faults each fail where they are."""
    with tempfile.TemporaryDirectory() as tmp:
        _write(os.path.join(tmp, "kernels", "01_a.cu"),
               "// [doc:core]\n" + "".join("int a%d = %d;\n" % (i, i) for i in range(6)) + "// [/doc:core]\n")
        _write(os.path.join(tmp, "kernels", "02_b.cu"), "\n".join([
            "// [doc:core]", "int b0 = 0;", "// [doc:inner]", "int b1 = 1;", "// [/doc:inner]",  # 1-5
            "int b2 = 2;", "int b3 = 3;", "int b4 = 4;", "int b5 = 5;", "// [/doc:core]"]) + "\n")  # 6-10
        _write(os.path.join(tmp, "docs", "figures", "02-thread-map.svg"), "<svg/>\n")
        _write(os.path.join(tmp, "docs", "results", "run.json"), '{"results": [{"tflops": 12.34}]}\n')
        _write(os.path.join(tmp, "docs", "results", "other.json"), '{"x": 5}\n')
        _write(os.path.join(tmp, "docs", "results", "run.md"), "# Run\n")
        for gpu in ("h100-x", "h200-x"):  # same name, two files: a link to one does not vouch for the other
            _write(os.path.join(tmp, "docs", "results", "raw", gpu, "run.json"), '{"results": [{"tflops": 12.34}]}\n')
        _write(os.path.join(tmp, "docs", "results", "raw", "ncu.txt"),
               "sm__throughput.avg.pct_of_peak_sustained_elapsed   %   87.34\n")
        good = "\n".join([
            "# Step 02: B", "",
            "## The idea", "",
            "The scheduler issues one instruction per clock into an issue slot; the issue rate, the issue-bound kernel; variants of the tile and variant 3 pass, so do",
            "4096³, 1e10 and 0x1f2e3d4c; so does `variant 703`, `abc1234f` in code and",
            "[a commit](https://example.com/commit/abc1234def). <!-- a TODO in a comment passes -->", "",
            "## The picture", "",
            "![threads](../figures/02-thread-map.svg)", "",
            "Each square is a thread.", "",
            "## What changed against step 01", "",
            "<!-- diff: kernels/01_a.cu#doc:core kernels/02_b.cu#doc:core -->", "",
            "Step 02 reads [the second value](../../kernels/02_b.cu#L4 \"doc:inner\").", "",
            "## The arithmetic", "",
            "Nothing.", "",
            "## Prediction", "",
            "About 12 TFLOP/s.", "",
            "## Measured", "",
            "12.3<!-- from run.json: results[0].tflops --> TFLOP/s ([run.json](../results/run.json)).", "",
            "The SM is 87.3<!-- from raw/ncu.txt: /sm__throughput\\S*\\s+%\\s+([\\d.]+)/ --> % busy",
            "([ncu.txt](../results/raw/ncu.txt)).", "",
            "| run | TFLOP/s |", "|---|---|",
            "| [run.json](../results/run.json) | 12.3<!-- from run.json: results[0].tflops --> |", "",
            "## What limits it next", "",
            "Memory.", "",
            "## Appendix", "",
            "Tuned as variant 703 in a session, after the build before abc1234f; TODO.",
        ]) + "\n"

        def line_of(text, needle):
            return text[:text.index(needle)].count("\n") + 1

        page = os.path.join(tmp, "docs", "kernels", "02_b.md")
        _write(page, good)
        at = line_of(good, "<!-- diff:")
        clear_caches()
        _, broken = check_tree(tmp)
        if not _expect("a lone diff comment", broken, [("docs/kernels/02_b.md:%d" % at, ("not followed by", "--fix"))]):
            return False
        rewritten = fix_diffs(tmp)
        clear_caches()
        _, broken = check_tree(tmp)
        with open(page, encoding="utf-8") as f:
            good = f.read()
        block = good.splitlines()[at:at + 18]
        want = (["```diff", "--- kernels/01_a.cu", "+++ kernels/02_b.cu", "@@ -1,6 +1,6 @@"] +
                ["-int a%d = %d;" % (i, i) for i in range(6)] + ["+int b%d = %d;" % (i, i) for i in range(6)] +
                ["```", DIFF_CLOSE])
        if not _expect("the good page after --fix", broken, []) or rewritten != 1 or block != want:
            print("check_docs: SELF-TEST FAILED (diff --fix): %d excerpts rewritten (want 1), block %s"
                  % (rewritten, block))
            return False
        filler = "".join("Filler line %d.\n" % i for i in range(250))
        faults = {  # page: (text, [(line, words)])
            "03_a.md": (good.replace("12.3<!--", "12.5<!--", 1), [(line_of(good, "12.3<!--"), ("12.5", "run.json"))]),
            "04_b.md": (good.replace("([run.json](../results/run.json))", "([run.md](../results/run.md))"),
                        [(line_of(good, "([run.json]"), ("the link names run.md but the figure reads run.json",))]),
            "04_x.md": (good.replace("12.3<!-- from run.json: results[0].tflops --> TFLOP/s ([run.json](../results/run.json))",
                                     "12.3<!-- from h200-x/run.json: results[0].tflops --> TFLOP/s "
                                     "([run.json](../results/raw/h100-x/run.json))"),
                        [(line_of(good, "([run.json]"), ("the link names raw/h100-x/run.json but the figure reads "
                                                         "raw/h200-x/run.json",))]),
            "05_c.md": (good.replace("## Prediction\n\nAbout 12 TFLOP/s.\n\n", ""),
                        [(1, ("'## Prediction' is missing",))]),
            "06_d.md": (good.replace("+int b5 = 5;", "+int b5 = 6;"), [(at, ("stale", "--fix"))]),
            "07_e.md": (good.replace("Memory.", "Memory, as variant 703 showed."),
                        [(line_of(good, "Memory."), ("'variant 703'",))]),
            "08_f.md": (good.replace("## Appendix", filler + "## Appendix"),
                        [(251, ("main text is %d lines" % (line_of(good, "## Appendix") - 1 + 250),))]),
            "09_g.md": (good.replace("Memory.", "Variants 12, 1200-1205, sessions, an issue, the build\nbefore "
                                     "deadbee1 and TODO-MEASURE(the rate).").replace("87.3<!--", "87.5<!--"),
                        [(line_of(good, "Memory."), ("'Variants 12, 1200-1205'",)),
                         (line_of(good, "Memory."), ("'an issue'",)),
                         (line_of(good, "Memory."), ("'the build before'",)),
                         (line_of(good, "Memory.") + 1, ("'deadbee1'",)),
                         (line_of(good, "Memory.") + 1, ("'TODO'",)),
                         (line_of(good, "87.3<!--"), ("87.5", "ncu.txt"))]),
            "10_h.md": (good.replace("![threads](../figures/02-thread-map.svg)", "A thread map.")
                        .replace("<!-- diff:", "<!-- no diff:") + "\n## Extra\n",
                        [(line_of(good, "## The picture"), ("shows no image",)),
                         (line_of(good, "## What changed"), ("holds 0 diff excerpts",)),
                         (line_of(good, "## Appendix"), ("'## Appendix' must be the last",))]),
        }
        for name, (text, _) in faults.items():
            _write(os.path.join(tmp, "docs", "kernels", name), text)
        clear_caches()
        _, broken = check_tree(tmp)
        if not _expect("planted page faults", broken,
                       [("docs/kernels/%s:%d" % (name, n), words) for name, (_, hits) in faults.items()
                        for n, words in hits]):
            return False
        if fix_diffs(tmp) != 1:  # only the stale excerpt of 06_d.md
            print("check_docs: SELF-TEST FAILED: --fix did not rewrite exactly the stale excerpt")
            return False
        clear_caches()
        _, broken = check_tree(tmp)
        if any(b.startswith(os.path.join("docs", "kernels", "06_d.md")) for b in broken):
            print("check_docs: SELF-TEST FAILED: the stale excerpt still fails after --fix: %s" % broken)
            return False
    clear_caches()
    return True


def self_test():
    """Plants good and broken links in a temporary tree; the checker must find exactly the broken ones."""
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "docs", "kernels"))
        os.makedirs(os.path.join(tmp, "kernels"))
        with open(os.path.join(tmp, "kernels", "k.txt"), "w") as f:  # not code: no markers, lines only
            f.write("".join("line %d\n" % i for i in range(1, 11)))  # 10 lines
        with open(os.path.join(tmp, "docs", "kernels", "b.md"), "w", encoding="utf-8") as f:
            f.write("# Step 01: B page\n\n## SASS (cuobjdump -sass, sm_90)\n\n## The idea\n\n## The idea\n")
        page = "\n".join([
            "# A page",
            "[ok file](b.md) [ok dir](../kernels/) [ok line](../../kernels/k.txt#L10)",
            "[ok range](../../kernels/k.txt#L2-L9) [`code` text](../../kernels/k.txt#L1)",
            "[ok heading](b.md#sass-cuobjdump--sass-sm_90) [ok dup](b.md#the-idea-1) [ok self](#a-page)",
            "[ok url](https://example.com/x.md#nothing)",
            "`[not a link](missing-in-code.md)`",
            "```",
            "[not a link](missing-in-fence.md)",
            "```",
            "[broken file](missing.md)",
            "[broken line](../../kernels/k.txt#L11)",
            "[broken range](../../kernels/k.txt#L9-L12) [reversed](../../kernels/k.txt#L5-L4)",
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
    clear_caches()
    return self_test_markers() and self_test_guide() and self_test_pages() and self_test_overview()


def self_test_overview():
    """The overview passes on its own sections (no 'What changed against') and fails on a missing one, on
    two out of order, on a page-long main text and on a process word, where they are."""
    with tempfile.TemporaryDirectory() as tmp:
        _write(os.path.join(tmp, "docs", "results", "roof.png"), "png\n")
        sections = ["## %s\n\nText.\n" % t for t in OVERVIEW_TEMPLATE]
        sections[1] = "## The picture\n\n![roofline](results/roof.png)\n\nWhat to see.\n"
        good = "# The big picture\n\n" + "\n".join(sections) + "\n## Appendix\n\nDetail, TODO-MEASURE(x).\n"
        page = os.path.join(tmp, "docs", "overview.md")
        _write(page, good)
        clear_caches()
        _, broken = check_tree(tmp)
        if not _expect("the good overview", broken, []):
            return False
        measured, limits = good.index("## Measured"), good.index("## What limits it next")
        swapped = good[:measured] + good[limits:good.index("## Appendix")] + good[measured:limits] + \
            good[good.index("## Appendix"):]  # 'What limits it next' before 'Measured'
        bad = swapped.replace("## Prediction\n\nText.\n\n", "").replace("## The idea\n\nText.", "## The idea\n\nA session.")
        bad = bad.replace("## Appendix", "".join("Filler %d.\n" % i for i in range(250)) + "## Appendix")
        _write(page, bad)
        clear_caches()
        _, broken = check_tree(tmp)
        n = bad[:bad.index("## Measured")].count("\n") + 1
        if not _expect("planted overview faults", broken, [
                ("docs/overview.md:1", ("'## Prediction' is missing", "The arithmetic; Prediction")),
                ("docs/overview.md:%d" % n, ("'## Measured' comes after '## What limits it next'",)),
                ("docs/overview.md:251", ("main text is",)),
                ("docs/overview.md:5", ("'session'",))]):
            return False
        if any("What changed against" in b for b in broken):
            print("check_docs: SELF-TEST FAILED: the overview was held to the step pages' sections: %s" % broken)
            return False
    clear_caches()
    return True


def self_test_guide():
    """The guide check finds a name no source has and a missing path, and passes those that exist."""
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "kernels"))
        with open(os.path.join(tmp, "kernels", "k.cu"), "w") as f:
            f.write("void sgemm_launch_it() {}  // gone_in_comment\nstruct KernelSpec { int field_ok; };\n")
        with open(os.path.join(tmp, "README.md"), "w", encoding="utf-8") as f:
            f.write("# R\n\n`gone_name` outside the guide\n\n%s\n\n`sgemm::sgemm_launch_it()`, `KernelSpec`, "
                    "`kernels/k.cu`, `kernels/NN_name.cu`, `--list --json`, `.field_ok = 1`\n`sgemm::gone_helper`, "
                    "`kernels/gone.cu`, `gone_in_comment`, `gone_tpl<A, B>`, `.gone_field = {}`\n"
                    "\n## Next\n\n`gone_too`\n" % GUIDE_HEADING)
        got = sorted(b.split(": ", 1)[0] for b in check_guide(tmp))
        if got != ["README.md:8"] * 5:
            print("check_docs: SELF-TEST FAILED: guide check found %s, want README.md:8 five times" % got)
            return False
    return True


def main(argv):
    import argparse
    parser = argparse.ArgumentParser(
        description="Checks the links, line anchors, code markers, tagged figures, step-page template and diff "
                    "excerpts of docs/ and README.md.")
    parser.add_argument("root", nargs="?", default=".", help="repository root (default: .)")
    parser.add_argument("--fix", action="store_true",
                        help='rewrite the line anchors of links titled "doc:NAME" from their markers and the diff '
                             'excerpts from their regions, then check')
    parser.add_argument("--self-test", action="store_true", help="run only the self-test")
    args = parser.parse_args(argv[1:])
    root = args.root
    if not self_test():
        return 2
    if args.self_test:
        print("check_docs: self-test passed")
        return 0
    if not os.path.isdir(os.path.join(root, "docs")):
        print("check_docs: no docs/ under %s (run from the repository root)" % os.path.abspath(root))
        return 2
    if args.fix:
        print("check_docs: --fix rewrote %d links and %d diff excerpts" % (fix_tree(root), fix_diffs(root)))
    tally = {}
    checked, broken = check_tree(root, tally)
    if not guide_spans(os.path.join(root, "README.md")):  # a renamed heading must not switch the check off
        broken.append("README.md:1: no section '%s' with code names to check" % GUIDE_HEADING)
        tally.setdefault("guide", []).append("README.md")
    for b in broken:
        print(b)
    for check in CHECKS:
        files = tally.get(check, [])
        print("check_docs: %s: %d files failing (%d problems)" % (check, len(set(files)), len(files)))
    print("check_docs: %d links and tagged figures checked, %d broken" % (checked, len(broken)))
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
