#!/usr/bin/env bash
# End-to-end checks of sgemm_runner's exit codes and messages. Works with and
# without a GPU: without one, running a kernel must fail with a clear message.
set -u
runner=${1:?usage: test_runner_cli.sh path/to/sgemm_runner}
failed=0; passed=0
expect() {  # expect CODE PATTERN -- ARGS...   (ENV_PREFIX, if set, goes before the runner: env VAR=1)
    local code=$1 pattern=$2; shift 3
    local out rc
    out=$(${ENV_PREFIX:-} "$runner" "$@" 2>&1); rc=$?
    if [[ $rc -eq $code ]] && grep -Eq -- "$pattern" <<<"$out"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL: sgemm_runner $* -> exit $rc (want $code), output should match /$pattern/:"
        sed 's/^/    /' <<<"$out" | head -20
    fi
}
# The kernels to run, from the runner's own registry (this test names no step): the steps in order (sub-steps
# such as 9a included), no tuning variants, no baselines. "NUMBER NAME LABEL" each.
steps=$("$runner" --list --json - | python3 -c '
import json, sys
for k in json.load(sys.stdin)["kernels"]:
    if not k["baseline"] and not k["tuning_variant"]:
        print(k["number"], k["name"], k["label"])')
read -r n1 name1 label1 <<<"$(sed -n 1p <<<"$steps")"
read -r n2 name2 label2 <<<"$(sed -n 2p <<<"$steps")"
if [[ -z ${label2:-} ]]; then
    echo "FAIL: sgemm_runner --list --json - lists fewer than two steps:"; echo "$steps"
    echo "runner_cli: 0 passed, 1 failed"; exit 1
fi
all_steps=$(awk '{print $1}' <<<"$steps" | paste -sd,)
# A step that computes NN only (N/A in the other layouts), "NUMBER NAME".
read -r nn_n nn_name <<<"$("$runner" --list --json - | python3 -c '
import json, sys
k = next(k for k in json.load(sys.stdin)["kernels"] if not k["baseline"] and not k.get("any_layout"))
print(k["number"], k["name"])')"
# The tuned baseline's number (the registry's kTunedBaseline).
tuned=$("$runner" --list --json - | python3 -c 'import json, sys; print(json.load(sys.stdin)["tuned_baseline"])')
# A sub-step (9a), "STEP PART LABEL NAME", if the registry has one.
read -r sub_step sub_part sub_label sub_name <<<"$("$runner" --list --json - | python3 -c '
import json, sys
k = next((k for k in json.load(sys.stdin)["kernels"] if k.get("part")), None)
print(*(k["step"], k["part"], k["label"], k["name"]) if k else "")')"

expect 0 '^ +0 +cublas +cuBLAS' -- --list
expect 0 "^ +$n1 +$name1 " -- --list
expect 0 'Exit codes' -- --help
expect 2 "unknown kernel 'bogus'.*" -- --kernel bogus --size 8,8,8
expect 2 "$name1" -- --kernel "$n1,bogus"
# --list --kernel KEYS: exactly the kernels KEYS selects (cuBLAS where named), the errors of a run.
expect 0 '^ +0 +cublas ' -- --list --kernel cublas
expect 0 "^ +$tuned +cublaslt +cuBLASLt .*\\[every layout\\]" -- --list --kernel cublaslt
expect 0 '"baseline": true' -- --list --kernel cublaslt --json -
expect 0 '"baseline": false' -- --list --kernel "$n1" --json -
expect 0 '"functions": null' -- --list --kernel "$tuned" --json -
expect 0 'no-tuned-baseline' -- --help
# scripts/sgemm_results.py knows the tuned baseline by the registry's number.
if [[ "$(python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import sgemm_results as sr; print(sr.TUNED_BASELINE)' \
    "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../scripts")" == "$tuned" ]]; then
    passed=$((passed + 1))
else
    failed=$((failed + 1)); echo "FAIL: scripts/sgemm_results.py's TUNED_BASELINE is not the registry's $tuned"
fi
# A label, a name and a zero-padded number of the same kernel: both kernels once, in registry order.
listed=$("$runner" --list --kernel "$label2,$name1,0$n1" 2>&1 | awk '{print $1, $2}')
if [[ $listed == "$n1 $name1"$'\n'"$n2 $name2" ]]; then
    passed=$((passed + 1))
else
    failed=$((failed + 1)); echo "FAIL: sgemm_runner --list --kernel $label2,$name1,0$n1 listed:"; echo "$listed"
fi
if [[ "$("$runner" --list --kernel "$n1,bogus" 2>&1)" == "$("$runner" --kernel "$n1,bogus" --size 8,8,8 2>&1)" ]]; then
    passed=$((passed + 1))
else
    failed=$((failed + 1)); echo "FAIL: --list --kernel and a run say different things about an unknown kernel"
fi
expect 2 "unknown kernel 'bogus'" -- --list --kernel bogus --json -
# scripts/sgemm_results.py resolves keys for scripts that have only a results file: it must select what
# the runner selects, key for key (the runner's grammar is the one grammar).
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
listing=$("$runner" --list --json -)
sub_keys=()
if [[ -n ${sub_part:-} ]]; then
    sub_keys=("$sub_step$sub_part" "0$sub_step$sub_part" "000$sub_step$sub_part" "0000$sub_step$sub_part"
              "$sub_step${sub_part^^}" "${sub_step}z" "$sub_label" "$sub_name" "$sub_step$sub_part,$sub_step,all"
              "$sub_step,$sub_step$sub_part,$n1")
fi
for keys in "$n1" "0$n1" "000$n1" "0000$n1" "$name1" "$label1" "$label2,$n1" "all" "0" "cublas" "$n1,$name2,all" "bogus" \
    "cublaslt" "$tuned,$n1" ${sub_keys[@]+"${sub_keys[@]}"}; do
    want=$("$runner" --list --kernel "$keys" --json - 2>/dev/null | python3 -c '
import json, sys
print(",".join(str(k["number"]) for k in json.load(sys.stdin)["kernels"]))' 2>/dev/null || echo "error")
    got=$(python3 -c '
import json, sys
sys.path.insert(0, sys.argv[1])
import sgemm_results as sr
try:
    print(",".join(str(k["number"]) for k in sr.resolve_kernels(sys.argv[2], json.loads(sys.argv[3])["kernels"])))
except sr.ResultsError:
    print("error")' "$here/../scripts" "$keys" "$listing")
    if [[ $got == "$want" ]]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1)); echo "FAIL: --kernel $keys: the runner selects '$want', sgemm_results '$got'"
    fi
done
# One ladder order: the runner's listing (registry order) is the order of scripts/sgemm_results.py's key, and a
# sub-step comes right before its step (08, 09a, 09b, 09).
got=$(python3 -c '
import json, sys
sys.path.insert(0, sys.argv[1])
import sgemm_results as sr
listed = json.loads(sys.argv[2])["kernels"]
parsed, _ = sr.parse_kernel_list(sys.argv[2])
after = {k["number"]: listed[i + 1] for i, k in enumerate(listed[:-1])}
bad = [sr.label(k) for k in listed if k.get("part") and not (
    after[k["number"]]["step"] == k["step"] and (after[k["number"]].get("part") or "~") > k["part"])]
print([k["number"] for k in parsed] == [k["number"] for k in listed], bad, sr.TUNING_FROM == json.loads(sys.argv[2])["tuning_from"])' \
    "$here/../scripts" "$listing")
if [[ $got == "True [] True" ]]; then
    passed=$((passed + 1))
else
    failed=$((failed + 1)); echo "FAIL: the runner's order, sgemm_results.ladder_key's and TUNING_FROM: $got"
fi
if [[ -n ${sub_part:-} ]]; then
    expect 0 "\"label\": \"$sub_label\"" -- --list --kernel "$sub_step$sub_part" --json -
    expect 0 "\"part\": \"$sub_part\"" -- --list --kernel "$sub_label" --json -
fi
expect 0 "\"label\": \"$label1\"" -- --list --kernel "$n1" --json -
expect 0 '"part": null' -- --list --kernel "$n1" --json -
expect 0 '"functions": "sgemm_[0-9]+_"' -- --list --kernel "$n1" --json -
expect 0 '"functions": null' -- --list --kernel cublas --json -
expect 2 'malformed size' -- --size 1,2
expect 2 'malformed size' -- --size a,b,c
expect 2 'at least 1' -- --size 0,5,5
expect 2 'at least 1' -- --size 5,-5,5
expect 2 'below 2\^31' -- --size 3000000000,1,1
expect 2 '^sgemm_runner: --reps must be at least 1$' -- --reps 0
expect 2 '^sgemm_runner: --warmup must be 0 or more$' -- --warmup -1
expect 2 'alpha must be a finite number' -- --alpha nan --kernel "$n1" --size 8,8,8
expect 2 'alpha must be a finite number' -- --alpha inf --kernel "$n1" --size 8,8,8
expect 2 'beta must be a finite number' -- --beta -inf --kernel "$n1" --size 8,8,8
expect 2 'cannot create this file' -- --json /nonexistent-sgemm-dir/x.json --kernel "$n1" --size 8,8,8
expect 2 'ld-pad must be 0 or more' -- --ld-pad -1
expect 2 "unknown --init 'bogus'.*uniform, positive, wide" -- --init bogus --kernel "$n1" --size 8,8,8
expect 2 "unknown --init 'Wide'" -- --init tiny,Wide
expect 0 'integers: ' -- --help
expect 2 'below 2\^31' -- --size 1,1,2147483647 --ld-pad 1
# --layout: NN, NT, TN, TT, comma lists, all; anything else exits 2 before any GPU work.
expect 2 "unknown --layout 'XX'.*NN, NT, TN, TT" -- --layout XX --kernel "$n1" --size 8,8,8
expect 2 "unknown --layout 'nt'" -- --layout NN,nt
expect 2 "unknown --layout ''" -- --layout NN,,TT
expect 0 '--layout' -- --help
# lda = M + pad with A transposed: the size NN takes is refused in TN.
expect 2 'layout TN: .*below 2\^31' -- --size 2147483647,1,1 --ld-pad 1 --layout NN,TN
expect 0 '^ +0 +cublas .*\[every layout\]' -- --list --kernel cublas --layout all
expect 0 '"any_layout": true' -- --list --kernel cublas --json -
expect 0 '"any_layout": false' -- --list --kernel "$nn_n" --json -
expect 2 'below 2\^31' -- --ld-pad 2147483000
expect 0 '"tuning_from": 100' -- --list --json -
expect 0 "\"tuned_baseline\": $tuned" -- --list --json -
expect 0 "\"label\": \"$label2\"" -- --list --json -
ENV_PREFIX="env NVIDIA_TF32_OVERRIDE=1" expect 2 'TF32' -- --kernel "$n1" --size 8,8,8
# --sustained SECONDS: more than 0, at most 3600; anything else exits 2 before any GPU work.
for bad in 0 -1 nan abc inf 3601 5s; do
    expect 2 "^sgemm_runner: --sustained must be a number of seconds, more than 0 and at most 3600 \\(got '$bad'\\)\$" \
        -- --sustained "$bad" --kernel "$n1" --size 8,8,8
done
expect 0 '--energy .*total-energy counter' -- --help
expect 0 '--sustained SECONDS' -- --help
# The course's hand-written lists of steps against the registry (no GPU). For every step (neither a
# baseline nor a tuning variant, by the listing's flags and its tuned_baseline / tuning_from; sub-steps
# such as 9a included): README.md's kernel table (| # | name | idea | page |) has exactly one row for it,
# its # cell the step's number or a sub-step's key ("9a"), with the registry's name in backticks, the
# registry's idea word for word and a link to docs/kernels/LABEL.md; docs/README.md has exactly one ladder
# bullet "- [NN name](kernels/LABEL.md)" ("[09a name]" for a sub-step); that page exists. Neither list may
# have entries for other kernels (README rows for the baselines are allowed if they match the registry too).
# Given OVERVIEW, docs/overview.md's ladder table (the one table whose header starts | step | one idea |)
# too: one row per step whose first cell is "[KEY](kernels/LABEL.md)" (KEY the label's prefix, "09a"), rows
# for the baselines ("00 ...", "99 ...") at most once each, nothing else.
# SGEMM_README_MD, SGEMM_DOCS_README_MD, SGEMM_KERNEL_PAGES and SGEMM_OVERVIEW_MD point it at other copies.
# check_ladder LISTING_JSON README DOCS_README PAGES_DIR [OVERVIEW]: "FAIL: ..." lines, then "cases PASSED FAILED".
check_ladder() {
    python3 - "$@" <<'PY'
import json, os, re, sys
listing, readme, docs_readme, pages = sys.argv[1:5]
overview = sys.argv[5] if len(sys.argv) > 5 else None
d = json.load(open(listing, encoding="utf-8"))
kernels = d["kernels"]
def is_step(k):
    return (not k["baseline"] and not k["tuning_variant"] and k["number"] != d["tuned_baseline"]
            and (bool(k.get("part")) or 1 <= k["number"] < d["tuning_from"]))
def key(k):  # its # cell: "9", or a sub-step's "9a"
    return f"{k['step']}{k['part']}" if k.get("part") else str(k["number"])
steps = [k for k in kernels if is_step(k)]
baselines = {k["number"]: k for k in kernels if k["baseline"]}
passed = failed = 0
def case(problems):
    global passed, failed
    for p in problems:
        print("FAIL: " + p)
    if problems:
        failed += 1
    else:
        passed += 1
def cells(line):  # the cells of a table row, or None; "\|" is a literal bar inside a cell
    s = line.strip()
    if len(s) < 2 or not (s.startswith("|") and s.endswith("|")):
        return None
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", s[1:-1])]
# README.md's kernel table: the rows after the header and its delimiter row, as (line number, cells).
lines = open(readme, encoding="utf-8").read().splitlines()
headers = [i for i, l in enumerate(lines) if cells(l) == ["#", "name", "idea", "page"]]
rows = []
if len(headers) == 1:
    i = headers[0] + 2
    while i < len(lines) and cells(lines[i]) is not None:
        rows.append((i + 1, cells(lines[i])))
        i += 1
case([] if len(headers) == 1 and rows else
     [f"{readme}: {len(headers)} tables with the header '| # | name | idea | page |' (want one, with rows)"])
number = lambda c: int(c[0]) if re.fullmatch(r"[0-9]+", c[0]) else None
def row_problems(k, ln, c, page):  # a row of kernel k: name, idea and page cells
    if len(c) != 4:
        return [f"{readme} line {ln}: {len(c)} cells, want 4"]
    out = []
    if c[1] != f"`{k['name']}`":
        out.append(f"{readme} line {ln}: name cell {c[1]!r}, want {'`' + k['name'] + '`'!r}")
    if c[2] != k["idea"]:
        out.append(f"{readme} line {ln}: idea cell {c[2]!r} is not the registry's idea {k['idea']!r}")
    if not re.search(r"\]\(" + re.escape(page) + r"\)", c[3]):
        out.append(f"{readme} line {ln}: page cell {c[3]!r} does not link {page}")
    return out
# docs/README.md's ladder: bullets "- [NN name](kernels/TARGET.md)...".
bullet = re.compile(r"- \[([0-9]+[a-z]? [^\]]*)\]\(kernels/([^)#\s]+)\.md\)")
bullets = [(ln, m) for ln, l in enumerate(open(docs_readme, encoding="utf-8").read().splitlines(), 1)
           if (m := bullet.match(l))]
# docs/overview.md's ladder table: (line number, cells) of its rows, as README's.
ov_rows, ov_tables = [], 0
if overview:
    lines = open(overview, encoding="utf-8").read().splitlines()
    ov_heads = [i for i, l in enumerate(lines) if (c := cells(l)) and c[:2] == ["step", "one idea"]]
    ov_tables = len(ov_heads)
    if ov_tables == 1:
        i = ov_heads[0] + 2
        while i < len(lines) and cells(lines[i]) is not None:
            ov_rows.append((i + 1, cells(lines[i])))
            i += 1
ov_link = re.compile(r"\[([^\]]+)\]\(kernels/([^)#\s]+)\.md\)$")
for k in steps:
    n, label = k["number"], k["label"]
    problems = []
    mine = [(ln, c) for ln, c in rows if c[0] == key(k)]
    if len(mine) != 1:
        where = f" (lines {', '.join(str(ln) for ln, _ in mine)})" if mine else ""
        problems.append(f"{readme}: {len(mine)} rows for it in the kernel table{where}, want exactly 1")
    for ln, c in mine:
        problems += row_problems(k, ln, c, f"docs/kernels/{label}.md")
    mine = [(ln, m) for ln, m in bullets if m[2] == label]
    if len(mine) != 1:
        where = f" (lines {', '.join(str(ln) for ln, _ in mine)})" if mine else ""
        problems.append(f"{docs_readme}: {len(mine)} ladder bullets linking kernels/{label}.md{where}, want exactly 1")
    want = label.replace("_", " ", 1)
    problems += [f"{docs_readme} line {ln}: bullet text [{m[1]}], want [{want}]" for ln, m in mine if m[1] != want]
    if not os.path.isfile(os.path.join(pages, label + ".md")):
        problems.append(f"no page {os.path.join(pages, label + '.md')}")
    if overview:
        mine = [(ln, m) for ln, c in ov_rows if (m := ov_link.match(c[0])) and m[2] == label]
        if len(mine) != 1:
            where = f" (lines {', '.join(str(ln) for ln, _ in mine)})" if mine else ""
            problems.append(f"{overview}: {len(mine)} rows for it in the ladder table{where}, want exactly 1")
        want = label.split("_", 1)[0]
        problems += [f"{overview} line {ln}: row [{m[1]}], want [{want}]" for ln, m in mine if m[1] != want]
    case([f"step {key(k)} ({k['name']}): {p}" for p in problems])
# Rows and bullets for anything else: baselines only, each at most once and matching the registry.
step_keys = {key(k) for k in steps}
problems = []
for ln, c in rows:
    n = number(c)
    if c[0] in step_keys:
        continue
    if n not in baselines:
        problems.append(f"{readme} line {ln}: a row for {c[0]!r}, which is no step or baseline of the registry")
        continue
    same = [l for l, r in rows if number(r) == n]
    if len(same) > 1 and ln == same[0]:
        problems.append(f"{readme}: {len(same)} rows for baseline {n} (lines {', '.join(map(str, same))})")
    problems += row_problems(baselines[n], ln, c, f"kernels/{baselines[n]['label']}.cu")
case(problems)
labels = {k["label"] for k in steps}
case([f"{docs_readme} line {ln}: a ladder bullet for kernels/{m[2]}.md, which is no registered step"
      for ln, m in bullets if m[2] not in labels])
if overview:  # one ladder table; its other rows: baselines, once each
    problems = [] if ov_tables == 1 and ov_rows else \
        [f"{overview}: {ov_tables} tables with the header '| step | one idea | ...' (want one, with rows)"]
    seen = {}
    for ln, c in ov_rows:
        m = ov_link.match(c[0])
        if m:
            if m[2] not in labels:
                problems.append(f"{overview} line {ln}: a row for kernels/{m[2]}.md, which is no registered step")
            continue
        n = re.match(r"([0-9]+) ", c[0])
        if not n or int(n[1]) not in baselines:
            problems.append(f"{overview} line {ln}: a row for {c[0]!r}, neither a step's page nor a baseline")
        elif int(n[1]) in seen:
            problems.append(f"{overview} line {ln}: baseline {int(n[1])} again (first on line {seen[int(n[1])]})")
        else:
            seen[int(n[1])] = ln
    case(problems)
if not steps:
    case(["the registry lists no steps"])
print("cases", passed, failed)
PY
}
# ladder CASE-NAME LISTING README DOCS_README PAGES: run check_ladder, add its cases to the counters.
ladder() {
    local name=$1 out rc summary; shift
    out=$(check_ladder "$@" 2>&1); rc=$?
    summary=$(tail -1 <<<"$out")
    if [[ $rc -ne 0 || ! $summary =~ ^cases\ ([0-9]+)\ ([0-9]+)$ ]]; then
        failed=$((failed + 1)); echo "FAIL: $name: the check did not run (exit $rc):"; sed 's/^/    /' <<<"$out" | head -20
        return
    fi
    passed=$((passed + BASH_REMATCH[1])); failed=$((failed + BASH_REMATCH[2]))
    sed '$d' <<<"$out"
}
ladder_tmp=$(mktemp -d)
"$runner" --list --json - >"$ladder_tmp/list.json"
ladder "the lists of steps" "$ladder_tmp/list.json" "${SGEMM_README_MD:-$here/../README.md}" \
    "${SGEMM_DOCS_README_MD:-$here/../docs/README.md}" "${SGEMM_KERNEL_PAGES:-$here/../docs/kernels}" \
    "${SGEMM_OVERVIEW_MD:-$here/../docs/overview.md}"
# Self-test on planted faults: README with step n1's row twice, step n2's row gone and a changed idea for
# the last step; docs/README without step n1's bullet; no page for step n2. Each must be reported, once
# under its own step, and nothing else.
last_n=$(awk 'END {print $1}' <<<"$steps")
awk -v a="$n1" -v b="$n2" -v c="$last_n" '
    $0 ~ "^\\| " a " \\|" {print}
    $0 ~ "^\\| " b " \\|" {next}
    $0 ~ "^\\| " c " \\|" {sub(/ \| \[/, " (changed) | [")}
    {print}' "$here/../README.md" >"$ladder_tmp/README.md"
grep -v "^- \\[[0-9]* $name1\\](kernels/" "$here/../docs/README.md" >"$ladder_tmp/docs-README.md"
mkdir "$ladder_tmp/pages" && cp "$here"/../docs/kernels/*.md "$ladder_tmp/pages/" && rm -f "$ladder_tmp/pages/$label2.md"
got=$(check_ladder "$ladder_tmp/list.json" "$ladder_tmp/README.md" "$ladder_tmp/docs-README.md" "$ladder_tmp/pages" 2>&1)
if [[ $(grep -c '^FAIL: ' <<<"$got") -eq 5 ]] && [[ $(tail -1 <<<"$got") == "cases $(wc -l <<<"$steps") 3" ]] &&
    grep -q "^FAIL: step $n1 ($name1): .*README.md: 2 rows for it in the kernel table" <<<"$got" &&
    grep -q "^FAIL: step $n1 ($name1): .*docs-README.md: 0 ladder bullets linking kernels/$label1.md" <<<"$got" &&
    grep -q "^FAIL: step $n2 ($name2): .*README.md: 0 rows for it in the kernel table" <<<"$got" &&
    grep -q "^FAIL: step $n2 ($name2): no page .*/$label2.md" <<<"$got" &&
    grep -q "^FAIL: step $last_n .*idea cell .*(changed)' is not the registry's idea" <<<"$got"; then
    passed=$((passed + 1))
else
    failed=$((failed + 1)); echo "FAIL: the check of the lists of steps missed planted faults; it said:"
    sed 's/^/    /' <<<"$got"
fi
# The overview's table, planted: step n1's row twice, step n2's row gone, the last step's row as [x], a row
# for a page that is no step and the tuned baseline's row twice. Each must be reported once (the first three
# under their steps), and nothing else about the overview.
ov="${SGEMM_OVERVIEW_MD:-$here/../docs/overview.md}"
last_label=$(awk 'END {print $3}' <<<"$steps")
awk -v a="$label1" -v b="$label2" -v c="$last_label" -v t="$tuned" '
    index($0, "](kernels/" a ".md) |") {print}
    index($0, "](kernels/" b ".md) |") {next}
    index($0, "](kernels/" c ".md) |") {sub(/^\| \[[^]]*\]/, "| [x]")}
    $0 ~ "^\\| " t " " {print; print "| [07x](kernels/appendix-07-tuning.md) | not a step |"}
    {print}' "$ov" >"$ladder_tmp/overview.md"
got=$(check_ladder "$ladder_tmp/list.json" "$here/../README.md" "$here/../docs/README.md" "$here/../docs/kernels" \
    "$ladder_tmp/overview.md" 2>&1)
mine=$(grep "^FAIL: .*$ladder_tmp/overview.md" <<<"$got")
if [[ $(grep -c . <<<"$mine") -eq 5 ]] &&
    grep -q "^FAIL: step $n1 ($name1): .*overview.md: 2 rows for it in the ladder table" <<<"$mine" &&
    grep -q "^FAIL: step $n2 ($name2): .*overview.md: 0 rows for it in the ladder table" <<<"$mine" &&
    grep -q "^FAIL: step $last_n .*overview.md line [0-9]*: row \[x\], want \[${last_label%%_*}\]" <<<"$mine" &&
    grep -q "overview.md line [0-9]*: a row for kernels/appendix-07-tuning.md, which is no registered step" <<<"$mine" &&
    grep -q "overview.md line [0-9]*: baseline $tuned again" <<<"$mine"; then
    passed=$((passed + 1))
else
    failed=$((failed + 1)); echo "FAIL: the check of the overview's ladder table missed planted faults; it said:"
    sed 's/^/    /' <<<"$got"
fi
rm -rf "$ladder_tmp"
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
    expect 0 'PASS' -- --kernel "$n1,$n2" --size 33,65,17 --reps 2 --warmup 1
    expect 0 'views: lda = K \+ 3' -- --kernel all --size 37,41,43 --ld-pad 3 --offset 1 --reps 2 --warmup 0
    expect 0 'config: ' -- --kernel "$n2" --size 64,64,64 --verbose --reps 2 --warmup 0
    expect 0 'inputs special' -- --kernel "$all_steps" --size 130,70,9 --init special,integers --reps 1 --warmup 0
    # Every layout: a table each, cuBLAS the baseline in each, an NN-only step N/A in the other three.
    expect 0 'layout TT, inputs uniform' -- --kernel "$nn_n" --size 33,65,17 --layout all --reps 1 --warmup 0
    expect 0 "$nn_name .*N/A \(NN only\)" -- --kernel "$nn_n" --size 33,65,17 --layout NT --reps 1 --warmup 0
    expect 0 'ldb = N \+ 2 \(K \+ 2 with B transposed\)' -- --kernel all --size 37,41,43 --layout all --ld-pad 2 --offset 1 --reps 1 --warmup 0
    # The roofline: both rates once in the header (its % roof column: below, after % cuBLAS and % tuned).
    expect 0 '^roofline: FFMA [0-9.]+ TFLOP/s .*, DRAM [0-9.]+ TB/s measured' -- --kernel "$n1" --size 64,64,64 --reps 1 --warmup 0
    # The tuned baseline by default: its row right after cuBLAS's, and % tuned between % cuBLAS and % roof;
    # --no-tuned-baseline drops both unless --kernel names it.
    expect 0 '% cuBLAS +% tuned +% roof +rel err' -- --kernel "$n1" --size 64,64,64 --reps 1 --warmup 0
    out=$("$runner" --kernel "$n1" --size 64,64,64 --reps 1 --warmup 0 2>&1)
    if grep -A1 -E '^ +0 +cublas ' <<<"$out" | tail -1 | grep -Eq "^ +$tuned +cublaslt .* PASS"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1)); echo "FAIL: the tuned baseline's row does not follow cuBLAS's:"; echo "$out"
    fi
    expect 0 'config: cublasLtMatmul.*, the fastest of ' -- --kernel "$tuned" --size 64,64,64 --reps 1 --warmup 0 -v
    out=$("$runner" --kernel "$n1" --size 64,64,64 --reps 1 --warmup 0 --no-tuned-baseline 2>&1)
    if grep -Eq '% cuBLAS +% roof +rel err' <<<"$out" && ! grep -Eq "% tuned|^ +$tuned +cublaslt" <<<"$out"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1)); echo "FAIL: --no-tuned-baseline still shows the tuned baseline:"; echo "$out"
    fi
    # Named, it runs all the same.
    out=$("$runner" --kernel cublaslt --no-tuned-baseline --size 64,64,64 --reps 1 --warmup 0 2>&1)
    if grep -q '% tuned' <<<"$out" && grep -Eq "^ +$tuned +cublaslt .* PASS" <<<"$out"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1)); echo "FAIL: --kernel cublaslt --no-tuned-baseline did not run it:"; echo "$out"
    fi
    expect 0 '^roofline: not measured \(--no-roofline\)' -- --kernel "$n1" --size 64,64,64 --reps 1 --warmup 0 --no-roofline
    # The JSON's command holds no absolute path (the runner is named relative to the repository).
    tmp=$(mktemp -d)
    expect 0 'wrote' -- --kernel "$n1" --size 8,8,8 --reps 1 --warmup 0 --json="$tmp/r.json"
    if grep -q '"dram_gbs_measured": [0-9]' "$tmp/r.json" && grep -q '"pct_roof": [0-9]' "$tmp/r.json"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1)); echo "FAIL: the JSON lacks the roofline (roofline.dram_gbs_measured, pct_roof)"
    fi
    # pct_tuned on every row of a table where the tuned baseline ran (100 on its own), null without it.
    expect 0 'wrote' -- --kernel "$n1" --size 8,8,8 --reps 1 --warmup 0 --no-tuned-baseline --json="$tmp/n.json"
    got=$(python3 -c '
import json, sys
rows = lambda p: json.load(open(p))["results"]
print([(r["kernel"], r["pct_tuned"] is not None) for r in rows(sys.argv[1])],
      [r["pct_tuned"] for r in rows(sys.argv[1]) if r["kernel"] == int(sys.argv[3])],
      [(r["kernel"], r["pct_tuned"]) for r in rows(sys.argv[2])])' "$tmp/r.json" "$tmp/n.json" "$tuned")
    if [[ $got == "[(0, True), ($tuned, True), ($n1, True)] [100.0] [(0, None), ($n1, None)]" ]]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1)); echo "FAIL: pct_tuned in the JSON: $got"
    fi
    # Each row records its layout; the settings the layouts run, in order.
    expect 0 'wrote' -- --kernel "$nn_n" --size 8,8,8 --reps 1 --warmup 0 --layout TN,NN --json="$tmp/l.json"
    got=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(d["settings"]["layouts"], sorted({(r["layout"], r["kernel"], r["status"]) for r in d["results"]}))' "$tmp/l.json")
    want="['TN', 'NN'] [('NN', 0, 'PASS'), ('NN', $nn_n, 'PASS'), ('NN', $tuned, 'PASS'), ('TN', 0, 'PASS'), "
    want+="('TN', $nn_n, 'N/A'), ('TN', $tuned, 'PASS')]"
    if [[ $got == "$want" ]]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1)); echo "FAIL: --layout TN,NN: the JSON's layouts and rows are $got"
    fi
    if grep -Eq '"command": "[^"]*(^|[ =])/' "$tmp/r.json" || ! grep -Eq '"command": "[^/" ][^" ]*sgemm_runner' "$tmp/r.json"; then
        failed=$((failed + 1)); echo "FAIL: the JSON's command holds an absolute path: $(grep '"command"' "$tmp/r.json")"
    else
        passed=$((passed + 1))
    fi
    # Without --energy: no energy columns and every energy field null.
    got=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
keys = ("energy_j", "gflop_per_j", "power_w", "power_max_w", "sm_clock_mhz", "energy_window_s", "energy_gemms")
print(d["energy_meter"], d["settings"]["energy_window_s"], all(r[k] is None for r in d["results"] for k in keys))' "$tmp/r.json")
    if [[ $got == "None None True" ]]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1)); echo "FAIL: energy fields without --energy: $got"
    fi
    # --energy: the meter (or why there is none) once, the four columns, and on every row a positive figure
    # or null (no NVML, no counter, or a counter that did not advance), never 0 or negative.
    expect 0 '^energy: (NVML total-energy counter, a window of at least 0.5 s|n/a \()' -- --energy --kernel "$n2" \
        --size 256,256,256 --reps 3 --json="$tmp/e.json"
    expect 0 'max\|d cuB\| +J/GEMM +GFLOP/J +W +SM MHz +check' -- --energy --kernel "$n2" --size 64,64,64 --reps 1 \
        --warmup 0 --sustained 0.05
    got=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
keys = ("energy_j", "gflop_per_j", "power_w", "power_max_w", "sm_clock_mhz", "energy_window_s", "energy_gemms")
bad = [(r["kernel"], k, r[k]) for r in d["results"] for k in keys if r[k] is not None and not r[k] > 0]
measured = d["energy_meter"].startswith("NVML")
# With a meter every row has its window; energy_j may still be null where the counter did not advance.
bad += [(r["kernel"], "window") for r in d["results"] if measured and not r["energy_gemms"]]
print(d["settings"]["energy_window_s"], len(d["results"]), bad)' "$tmp/e.json")
    if [[ $got == "0.5 3 []" ]]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1)); echo "FAIL: --energy: the JSON's energy fields (window, rows, bad values): $got"
    fi
    rm -rf "$tmp"
    expect 2 'does not fit|needs .* MiB' -- --kernel "$n1" --size 1000000,1000000,1000000
else
    expect 3 'no CUDA device' -- --kernel "$n1" --size 64,64,64
    expect 3 'no CUDA device' -- --kernel "$n1" --size 64,64,64 --no-tuned-baseline
    expect 3 'no CUDA device' -- --kernel "$n1" --size 64,64,64 --energy
fi
# sgemm_timeline (built beside the runner): a bad command line exits 2 before any GPU work. The timeline
# kernels exist only in tuning builds; any build must refuse a kernel that stamps nothing.
timeline="$(dirname "$runner")/sgemm_timeline"
if [[ -x $timeline ]]; then
    saved_runner=$runner; runner=$timeline
    expect 2 'required' --
    expect 2 '--step is required' -- --kernel "$n1" --size 64,64,64 --out /dev/null
    expect 2 'at least 1' -- --kernel "$n1" --size 0,64,64 --step 01 --out /dev/null
    expect 2 "unknown kernel 'bogus'" -- --kernel bogus --size 64,64,64 --step 01 --out /dev/null
    expect 2 "stamps no timeline" -- --kernel "$n1" --size 64,64,64 --step 01 --out /dev/null
    runner=$saved_runner
fi
echo "runner_cli: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
