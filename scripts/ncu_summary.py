#!/usr/bin/env python3
"""Compact summary of an Nsight Compute raw CSV (`ncu --import R --csv --page raw`), used by scripts/profile.sh.

The CSV has a header row of metric names, usually a units row, then one row per
profiled kernel launch. Standard library only.
"""

from __future__ import annotations

import argparse
import csv
import io
import re
import sys

STALL_PREFIX = "smsp__average_warps_issue_stalled_"
STALL_SUFFIX = "_per_issue_active.ratio"
STALL_REASONS = (
    "barrier", "long_scoreboard", "short_scoreboard", "mio_throttle", "lg_throttle", "math_pipe_throttle",
    "not_selected", "selected", "wait", "dispatch_stall", "no_instruction", "branch_resolving", "membar", "drain",
    "imc_miss", "tex_throttle", "sleeping",
)
# 'selected' is the warp that issued: about 1 per issue by definition, not a stall.
NOT_A_STALL = ("selected",)

METRICS = (
    "gpu__time_duration.sum",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "dram__bytes.sum",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "launch__registers_per_thread",
    "launch__shared_mem_per_block",
    "launch__shared_mem_per_block_static",
    "launch__shared_mem_per_block_dynamic",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
    "sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active",
    "sm__inst_issued.avg.pct_of_peak_sustained_active",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    # Tensor cores (wgmma kernels): cycles the tensor pipe is busy with HMMA, HGMMA (wgmma) or QGMMA work.
    "sm__pipe_tensor_op_hmma_type_hmma_hgmma_qgmma_cycles_active.avg.pct_of_peak_sustained_active",
    "sm__inst_executed_pipe_tensor_op_gmma.avg.pct_of_peak_sustained_active",
) + tuple(f"{STALL_PREFIX}{r}{STALL_SUFFIX}" for r in STALL_REASONS)

# Scale factors to base units, in case the CSV was not printed with --print-units base.
UNIT_SCALE = {
    "byte": 1, "kbyte": 1e3, "mbyte": 1e6, "gbyte": 1e9, "tbyte": 1e12,
    "kibyte": 2**10, "mibyte": 2**20, "gibyte": 2**30,
    "nsecond": 1e-9, "usecond": 1e-6, "msecond": 1e-3, "second": 1.0,
    "ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0,
}
TIME_UNITS = {"nsecond", "usecond", "msecond", "second", "ns", "us", "ms", "s"}


class SummaryError(Exception):
    pass


def parse_raw_csv(text: str) -> list[dict]:
    """Rows of a raw-page CSV as {column: (value string, unit)}; lines before the header (==PROF== etc.) are skipped."""
    rows = list(csv.reader(io.StringIO(text)))
    start = next((i for i, r in enumerate(rows) if r and r[0] == "ID" and "Kernel Name" in r), None)
    if start is None:
        raise SummaryError("no ncu raw-page header (a row starting with \"ID\" and holding \"Kernel Name\") found")
    header = rows[start]
    body = rows[start + 1:]
    units = [""] * len(header)
    if body and len(body[0]) == len(header) and body[0][0] == "":
        units, body = body[0], body[1:]
    out = []
    for r in body:
        if len(r) != len(header) or not r[0].strip().isdigit():
            continue
        out.append({h: (v, u) for h, v, u in zip(header, r, units)})
    return out


def value(row: dict, metric: str):
    """Metric value in base units (bytes, seconds, %, counts) or None when absent or n/a."""
    if metric not in row:
        return None
    text, unit = row[metric]
    text = text.strip().replace(",", "")
    if not text or text.lower() in ("n/a", "nan"):
        return None
    try:
        v = float(text)
    except ValueError:
        return None
    return v * UNIT_SCALE.get(unit.strip().lower(), 1)


def has_time_unit(row: dict, metric: str) -> bool:
    """True when the units row gave a time unit, which value() has already scaled to seconds."""
    return row.get(metric, ("", ""))[1].strip().lower() in TIME_UNITS


def fmt(v, spec="{:,.1f}", none="n/a"):
    return none if v is None else spec.format(v)


def fmt_bytes(v):
    if v is None:
        return "n/a"
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if v >= scale:
            return f"{v / scale:,.2f} {unit}"
    return f"{v:,.0f} B"


def stalls(row: dict):
    found = []
    for reason in STALL_REASONS:
        v = value(row, f"{STALL_PREFIX}{reason}{STALL_SUFFIX}")
        if v is not None:
            found.append((reason, v))
    found.sort(key=lambda rv: (-rv[1], rv[0]))
    return found


def pct(v):
    return "n/a" if v is None else f"{v:.1f} %"


def summarise(row: dict, size=None) -> str:
    g = lambda m: value(row, m)  # noqa: E731
    lines = []

    def line(label, text):
        lines.append(f"{label:<23}{text}")

    line("kernel", row.get("Kernel Name", ("?", ""))[0])
    line("launch", f"grid {row.get('Grid Size', ('?', ''))[0]}, block {row.get('Block Size', ('?', ''))[0]}")
    dur = g("gpu__time_duration.sum")
    if dur is not None and not has_time_unit(row, "gpu__time_duration.sum"):
        dur *= 1e-9  # no units row: ncu's base unit for durations is the nanosecond
    text = "n/a" if dur is None else f"{dur * 1e3:,.4f} ms"
    if dur and size:
        m, n, k = size
        text += f"   ({2 * m * n * k / dur / 1e12:,.2f} TFLOP/s for {m}x{n}x{k}; one profiled launch, not the runner's median)"
    line("duration", text)
    line("DRAM throughput", f"{pct(g('dram__throughput.avg.pct_of_peak_sustained_elapsed'))} of peak, "
         f"{fmt_bytes(g('dram__bytes.sum'))} moved")
    line("achieved occupancy", f"{pct(g('sm__warps_active.avg.pct_of_peak_sustained_active'))} of the SM's warp slots")
    line("registers / thread", fmt(g("launch__registers_per_thread"), "{:.0f}"))
    st, dy = g("launch__shared_mem_per_block_static"), g("launch__shared_mem_per_block_dynamic")
    detail = f" (static {fmt_bytes(st)}, dynamic {fmt_bytes(dy)})" if st is not None or dy is not None else ""
    line("shared mem / block", fmt_bytes(g("launch__shared_mem_per_block")) + detail)
    for op, what in (("ld", "loads"), ("st", "stores")):
        conf = g(f"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{op}.sum")
        wave = g(f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum")
        share = f" ({100 * conf / wave:.1f} % of the wavefronts)" if conf is not None and wave else ""
        line(f"smem {what}", f"{fmt(conf, '{:,.0f}')} bank conflicts{share}, {fmt(wave, '{:,.0f}')} wavefronts")
    line("FMA pipe", f"{pct(g('sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active'))} of cycles active, "
         f"{pct(g('sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active'))} of peak FMA-pipe instruction rate")
    line("issue slots busy", pct(g("sm__inst_issued.avg.pct_of_peak_sustained_active")))
    gmma = g("sm__pipe_tensor_op_hmma_type_hmma_hgmma_qgmma_cycles_active.avg.pct_of_peak_sustained_active")
    if gmma:  # only kernels that use the tensor cores through wgmma
        line("tensor pipe (wgmma)", f"{pct(gmma)} of cycles active")
    sec = g("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum")
    req = g("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum")
    ratio = fmt(sec / req, "{:.2f}") if sec is not None and req else "n/a"
    line("global ld sectors/req", f"{ratio}   ({fmt(sec, '{:,.0f}')} sectors / {fmt(req, '{:,.0f}')} requests)")
    found = stalls(row)
    ranked = [(r, v) for r, v in found if r not in NOT_A_STALL]
    if ranked:
        line("top 3 stall reasons", ", ".join(f"{r} {v:.2f}" for r, v in ranked[:3])
             + "   (warps stalled per issued instruction)")
        line("all stall reasons", ", ".join(f"{r} {v:.2f}" for r, v in found))
    else:
        line("stall reasons", "n/a (metrics not collected)")
    return "\n".join(lines)


def metrics_named_in(log_text: str, metrics=METRICS) -> list[str]:
    """Our metrics that ncu's error/warning lines about metrics name (full name or base name, as whole tokens)."""
    lines = [ln for ln in log_text.splitlines()
             if ("==ERROR==" in ln or "==WARNING==" in ln) and "metric" in ln.lower()]
    text = "\n".join(lines)
    found = []
    for m in metrics:
        base = m.split(".")[0]
        if re.search(r"(?<![\w.])" + re.escape(m) + r"(?![\w.])", text) or \
                re.search(r"(?<![\w.])" + re.escape(base) + r"(?!\w)", text):
            found.append(m)
    return found


def parse_size(text):
    try:
        m, n, k = (int(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"bad size '{text}': expected M,N,K") from None
    return m, n, k


def main(argv=None):
    p = argparse.ArgumentParser(prog="ncu_summary.py",
                                description="Summarise an `ncu --csv --page raw` export (one block per kernel launch).")
    p.add_argument("csv", nargs="?", help="raw-page CSV file ('-' for standard input)")
    p.add_argument("--size", type=parse_size, metavar="M,N,K", help="GEMM size, to turn the duration into TFLOP/s")
    p.add_argument("--metrics", action="store_true",
                   help="print the comma-separated metric list scripts/profile.sh requests and exit")
    p.add_argument("--raw", metavar="PREFIXES",
                   help="instead of the summary: every metric whose name starts with one of these comma-separated "
                        "prefixes, one 'name value unit' line each (for pages that quote a metric the summary omits)")
    p.add_argument("--drop-named-in", metavar="LOG",
                   help="with --metrics: leave out the metrics that ncu's errors in LOG name as unknown")
    args = p.parse_args(argv)
    if args.metrics:
        metrics = list(METRICS)
        if args.drop_named_in:
            try:
                log = open(args.drop_named_in, encoding="utf-8", errors="replace").read()
            except OSError as e:
                print(f"ncu_summary.py: error: cannot read {args.drop_named_in}: {e.strerror}", file=sys.stderr)
                return 1
            drop = metrics_named_in(log)
            metrics = [m for m in metrics if m not in drop]
            if drop:
                print("ncu_summary.py: leaving out metrics ncu rejected: " + ", ".join(drop), file=sys.stderr)
        print(",".join(metrics))
        return 0
    if args.csv is None:
        p.error("the CSV argument is required")
    try:
        text = sys.stdin.read() if args.csv == "-" else open(args.csv, encoding="utf-8", errors="replace").read()
    except OSError as e:
        print(f"ncu_summary.py: error: cannot read {args.csv}: {e.strerror}", file=sys.stderr)
        return 1
    try:
        rows = parse_raw_csv(text)
        if not rows:
            raise SummaryError("the CSV holds no profiled kernel (did the --kernel-name filter match nothing?)")
    except SummaryError as e:
        print(f"ncu_summary.py: error: {args.csv}: {e}", file=sys.stderr)
        return 1
    if args.raw:
        prefixes = tuple(x for x in args.raw.split(",") if x)
        print("\n\n".join("\n".join(f"{name} {value.replace(',', '')} {unit}".rstrip()
                                     for name, (value, unit) in r.items() if name.startswith(prefixes))
                          for r in rows))
        return 0
    print("\n\n".join(summarise(r, args.size) for r in rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
