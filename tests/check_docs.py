#!/usr/bin/env python3
"""Checks the relative links of the documentation (standard library only).

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
that no page links to (every code file of the tree is scanned).

--fix rewrites, in place, the line anchor of every link titled "doc:NAME"
(adding it where the link has none) and the numbers its text quotes, from
the marker, then checks as usual. After code moves, run
python3 tests/check_docs.py --fix and commit the pages it changed.

It also checks tagged figures: a number followed by `<!-- from FILE: PATH -->`
(FILE a JSON file next to the page, in docs/results/raw/ or docs/results/; PATH
dotted keys with [i] indices, e.g. `cublas[0].tflops`) must equal the value in
that file, rounded to the decimals the page shows.

Before the real check it runs a self-test on planted links and markers in a
temporary directory (--self-test runs only that), so that a checker which
finds nothing cannot pass silently. Prints each broken link as file:line:
reason, then `check_docs: N links checked, M broken`; exits 1 if any link is
broken (2 if the self-test fails).
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
FIGURE_RE = re.compile(r"(-?\d[\d,]*(?:\.\d+)?)\s*%?\s*<!--\s*from\s+([^:\s]+):\s*([^\s>]+)\s*-->")
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


def check_tree(root):
    """Returns (number of links checked, list of 'file:line: reason')."""
    root = os.path.abspath(root)
    checked, broken, used = 0, [], set()
    for md in markdown_files(root):
        with open(md, encoding="utf-8") as f:
            text = f.read()
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
                    broken.append("%s:%d: %s (link: %s)" % (os.path.relpath(md, root), n, reason, t))
            for m in FIGURE_RE.finditer(line):
                checked += 1
                reason = check_figure(root, md, m.group(1), m.group(2), m.group(3))
                if reason:
                    broken.append("%s:%d: %s" % (os.path.relpath(md, root), n, reason))
    for path in code_files(root):
        regions, problems = file_markers(path)
        rel = os.path.relpath(path, root)
        broken += ["%s:%d: %s" % (rel, n, reason) for n, reason in problems]
        broken += ["%s:%d: marker [doc:%s] is linked from no page: remove it, or link to it" % (rel, marker, name)
                   for name, (marker, _, _) in sorted(regions.items(), key=lambda kv: kv[1])
                   if (os.path.normpath(path), name) not in used]
    broken += check_guide(root)
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
    return self_test_markers() and self_test_guide()


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
        description="Checks the links, line anchors, code markers and tagged figures of docs/ and README.md.")
    parser.add_argument("root", nargs="?", default=".", help="repository root (default: .)")
    parser.add_argument("--fix", action="store_true",
                        help='rewrite the line anchors of links titled "doc:NAME" from their markers, then check')
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
        print("check_docs: --fix rewrote %d links" % fix_tree(root))
    checked, broken = check_tree(root)
    if not guide_spans(os.path.join(root, "README.md")):  # a renamed heading must not switch the check off
        broken.append("README.md:1: no section '%s' with code names to check" % GUIDE_HEADING)
    for b in broken:
        print(b)
    print("check_docs: %d links and tagged figures checked, %d broken" % (checked, len(broken)))
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
