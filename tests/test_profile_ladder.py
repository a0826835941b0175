#!/usr/bin/env python3
"""Tests for scripts/profile_ladder: its parser of Nsight Compute raw-page CSVs, the JSON, the Markdown table
and the roofline on a synthetic run directory; `run` end to end with a fake ncu and a fake runner; and its
mirror of kernels/common/gpu_rates.h against the header itself (compiled with $CXX, c++, g++ or clang++;
skipped, with a message, where there is none). No GPU and no CUDA tool needed.

Run from the repository root:  python3 tests/test_profile_ladder.py
The PNG checks are skipped (with a message) when matplotlib is not importable.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import textwrap
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOL = os.path.join(REPO, "scripts", "profile_ladder")
sys.path.insert(0, os.path.join(REPO, "scripts"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_paths  # noqa: E402  (its pattern for absolute paths)

import sgemm_results as sr  # noqa: E402

pl = sr.load_script(TOOL, "profile_ladder")

try:
    import matplotlib  # noqa: F401

    HAVE_MPL = True
except ImportError:
    HAVE_MPL = False
NO_MPL = "matplotlib is not importable: PNG checks skipped (pip install -r scripts/requirements.txt)"

DEVICE = {"index": 0, "name": "Test GPU 9000 (synthetic)", "compute_capability": "9.0", "sm_count": 132,
          "sm_clock_max_mhz": 1980, "mem_clock_max_mhz": 2619, "mem_bus_bits": 5120, "driver_version": "999.1",
          "cuda_runtime": "13.0", "cublas": "13.1.0", "ffma_peak_tflops": 2 * 128 * 132 * 1980e6 / 1e12,
          "dram_peak_gbs": 2 * 2619e6 * 5120 / 8 / 1e9}
ID_COLUMNS = ["ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream", "Block Size",
              "Grid Size", "Device", "CC"]
UNITS = {  # the unit ncu's --print-units base gives each kind of metric
    "gpu__time_duration.sum": "nsecond", "dram__bytes.sum": "byte", "lts__t_bytes.sum": "byte",
    "sm__sass_data_bytes_mem_shared.sum": "byte", "dram__bytes.sum.peak_sustained": "byte/cycle",
    "lts__t_bytes.sum.peak_sustained": "byte/cycle", "sm__sass_data_bytes_mem_shared.sum.peak_sustained": "byte/cycle",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.peak_sustained": "1/cycle",
}


def unit_of(name):
    if name in UNITS:
        return UNITS[name]
    if name.endswith(".per_second"):
        return "cycle/second"
    if "pct" in name:
        return "%"
    return "inst" if name.endswith(".ratio") else ""


def raw_csv(rows):
    """An `ncu --csv --page raw --print-units base` export: ==PROF== noise, header, units row, one row per
    launch. rows: [(kernel name, {metric: value or (value, unit)})]."""
    names = sorted({m for _, metrics in rows for m in metrics})
    out = io.StringIO()
    out.write("==PROF== Connected to process 1 (fake)\n")
    w = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n")
    w.writerow(ID_COLUMNS + names)
    units = {}
    for _, metrics in rows:
        for m, v in metrics.items():
            units[m] = v[1] if isinstance(v, tuple) else unit_of(m)
    w.writerow([""] * len(ID_COLUMNS) + [units[m] for m in names])
    for i, (kernel, metrics) in enumerate(rows):
        vals = [(metrics[m][0] if isinstance(metrics[m], tuple) else metrics[m]) if m in metrics else "n/a"
                for m in names]
        w.writerow([str(i), "1", "sgemm_runner", "127.0.0.1", kernel, "1", "13", "(384, 1, 1)", "(132, 1, 1)", "0",
                    "9.0"] + [f"{v:,}" if isinstance(v, (int, float)) else v for v in vals])
    return out.getvalue()


def stall(reason):
    return pl.stall_metric(reason)


def ffma_kernel(duration_ns, dram, l2, smem, stalls, fma=80.0, issue=90.0, sm_hz=1.98e9):
    m = {pl.ROLES["duration"]: duration_ns, pl.ROLES["sm_hz"]: sm_hz, pl.ROLES["issue_pct"]: issue,
         pl.ROLES["fma_pct"]: fma, pl.ROLES["tensor_pct"]: 0.0, pl.ROLES["dram_bytes"]: dram,
         pl.ROLES["dram_pct"]: 3.0, pl.ROLES["dram_peak_per_cycle"]: 1280.0, pl.ROLES["dram_hz"]: 2.619e9,
         pl.ROLES["l2_bytes"]: l2, pl.ROLES["l2_peak_per_cycle"]: 5120.0, pl.ROLES["l2_hz"]: 1.7e9,
         pl.ROLES["smem_bytes"]: smem, pl.ROLES["smem_peak_per_cycle"]: 132 * 128.0}
    m.update({stall(r): v for r, v in stalls.items()})
    return m


# Three launches: cuBLAS (FFMA), a step whose ncu lacks the SASS shared-memory bytes (LSU wavefronts
# instead) and a tensor-core step with a measured SM clock in GHz and a duration in microseconds.
CUBLAS = ffma_kernel(2_684_300, 396_340_000, 4.0e9, 40.0e9,
                     {"selected": 1.0, "not_selected": 0.75, "short_scoreboard": 0.21, "barrier": 0.04})
STEP07 = {k: v for k, v in ffma_kernel(4_000_000, 1.2e9, 8.0e9, 0, {"mio_throttle": 3.0, "barrier": 1.0},
                                       fma=60.0).items() if "sass_data_bytes" not in k}
STEP07[pl.ROLES["smem_wavefronts"]] = 1.0e9
STEP07[pl.ROLES["smem_wavefronts_peak_per_cycle"]] = 132.0
STEP14 = ffma_kernel(0, 591.52e6, 6.25e9, 2.0e9, {"gmma": 2.0, "long_scoreboard": 0.5},
                     fma=5.0, issue=22.0)
STEP14[pl.ROLES["duration"]] = (1060.0, "usecond")
STEP14[pl.ROLES["sm_hz"]] = (1.46, "Ghz")
STEP14[pl.ROLES["tensor_pct"]] = 69.1
STEP14[pl.ROLES["l2_hz"]] = 1.75e9  # a faster L2 clock than the others': the L2 roof is the highest seen
SIZE = [4096, 4096, 4096]
FLOP = 2.0 * 4096**3


def write_run_dir(path, device=DEVICE, config14="8 moduli (27-bit fixed point, M_8 ~ 2^62 > 2 K 2^54), 132 SMs"):
    os.makedirs(path, exist_ok=True)
    entries = []
    for label, number, name, rows, config in (
            ("00_cublas", 0, "cublas", CUBLAS, ""), ("07_warptiling", 7, "warptiling", STEP07, "128x128 tile"),
            ("14_ozaki_int8", 14, "ozaki_int8", STEP14, config14)):
        kname = {"00_cublas": "sm80_xmma_gemm_f32f32", "07_warptiling": "sgemm_07_warptiling",
                 "14_ozaki_int8": "sgemm_14_ozaki_int8"}[label]
        with open(os.path.join(path, label + ".csv"), "w", encoding="utf-8") as f:
            f.write(raw_csv([(kname, rows)]))
        entries.append({"label": label, "number": number, "name": name, "step": number, "baseline": number == 0,
                        "precision": "fp32", "size": SIZE, "kernel_name_regex": "x", "kernel_name_base": "function",
                        "launch_skip": 6, "launch_rule": "the timed launch", "command": "ncu ...",
                        "kernel_name": kname, "passes": 12, "csv": label + ".csv", "log": label + ".log",
                        "config": config, "wall_s": 9.5})
    entries.append({"label": "99_cublaslt", "number": 99, "name": "cublaslt", "baseline": True, "size": SIZE,
                    "error": "ncu failed with exit status 1 (see 99_cublaslt.log):\n==ERROR== boom", "wall_s": 3.0})
    manifest = {"schema": pl.RUN_SCHEMA, "command": "scripts/profile_ladder run --out prof", "runner":
                "build/runner/sgemm_runner", "ncu_version": "Version 2025.3.0.0 (fake)", "clock_control": "none",
                "size": SIZE, "warmup": 5, "metrics": list(pl.METRICS), "metrics_dropped": ["x__made_up.sum"],
                "device": device, "kernels": entries}
    with open(os.path.join(path, pl.MANIFEST), "w", encoding="utf-8") as f:
        json.dump(manifest, f)
    return path


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


class ParseTest(unittest.TestCase):
    def test_units_to_base(self):
        rows = pl.ncu_summary.parse_raw_csv(raw_csv([("k", {
            "a.per_second": (1.5, "cycle/nsecond"), "b.per_second": (1.46, "Ghz"), "c.sum": (2.0, "Mbyte"),
            "gpu__time_duration.sum": (2.5, "msecond"), "d.sum.peak_sustained": (64.0, "byte/cycle"),
            "e.sum.per_second": (3.0, "Gbyte/second"), "f.pct": (12.5, "%"), "g.sum": ("n/a", "byte")})]))
        row = rows[0]
        self.assertAlmostEqual(pl.metric(row, "a.per_second"), 1.5e9)
        self.assertAlmostEqual(pl.metric(row, "b.per_second"), 1.46e9)
        self.assertAlmostEqual(pl.metric(row, "c.sum"), 2e6)
        self.assertAlmostEqual(pl.metric(row, "gpu__time_duration.sum"), 2.5e-3)
        self.assertAlmostEqual(pl.metric(row, "d.sum.peak_sustained"), 64.0)
        self.assertAlmostEqual(pl.metric(row, "e.sum.per_second"), 3e9)
        self.assertAlmostEqual(pl.metric(row, "f.pct"), 12.5)
        self.assertIsNone(pl.metric(row, "g.sum"))
        self.assertIsNone(pl.metric(row, "not.there"))

    def test_duration_without_units_row_is_nanoseconds(self):
        text = '"ID","Kernel Name","gpu__time_duration.sum"\n"0","k","2,000"\n'
        self.assertAlmostEqual(pl.metric(pl.ncu_summary.parse_raw_csv(text)[0], "gpu__time_duration.sum"), 2e-6)

    def test_metric_list(self):
        self.assertEqual(len(pl.METRICS), len(set(pl.METRICS)))
        for role in ("duration", "issue_pct", "fma_pct", "tensor_pct", "dram_bytes", "dram_pct", "l2_bytes",
                     "smem_bytes", "sm_hz"):
            self.assertIn(pl.ROLES[role], pl.METRICS)
        self.assertIn(stall("gmma"), pl.METRICS)
        self.assertIn(stall("long_scoreboard"), pl.METRICS)


class BuildTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="test-profile-ladder-")
        self.dir = write_run_dir(os.path.join(self.tmp, "prof"))

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_kernels(self):
        doc = pl.build(self.dir)
        self.assertEqual(doc["schema"], pl.SCHEMA)
        self.assertEqual([k["label"] for k in doc["kernels"]], ["00_cublas", "07_warptiling", "14_ozaki_int8"])
        self.assertEqual([k["label"] for k in doc["not_profiled"]], ["99_cublaslt"])
        cub, s07, s14 = doc["kernels"]
        self.assertEqual(cub["flop"], FLOP)
        self.assertAlmostEqual(cub["duration_s"], 2.6843e-3)
        self.assertAlmostEqual(cub["tflops"], FLOP / 2.6843e-3 / 1e12)
        self.assertAlmostEqual(cub["dram_gbs"], 396.34e6 / 2.6843e-3 / 1e9)
        self.assertAlmostEqual(cub["flop_per_l2_byte"], FLOP / 4.0e9)
        self.assertAlmostEqual(cub["flop_per_smem_byte"], FLOP / 40.0e9)
        self.assertAlmostEqual(cub["flop_per_dram_byte"], FLOP / 396.34e6)
        self.assertEqual(cub["smem_bytes_from"], "sm__sass_data_bytes_mem_shared.sum")
        self.assertAlmostEqual(cub["issue_pct"], 90.0)
        self.assertAlmostEqual(cub["sm_clock_mhz"], 1980.0)
        # 'selected' is no stall: the top one is not_selected, its share of the others' sum.
        self.assertEqual(cub["top_stall"], "not_selected")
        self.assertAlmostEqual(cub["top_stall_share"], 0.75 / (0.75 + 0.21 + 0.04))
        self.assertNotIn("selected", cub["stalls"])
        # No SASS shared-memory bytes: 128 bytes per LSU wavefront.
        self.assertEqual(s07["smem_bytes"], 128e9)
        self.assertIn("wavefronts", s07["smem_bytes_from"])
        self.assertAlmostEqual(s07["smem_peak_gbs"], 132 * 128 * 1.98e9 / 1e9)
        self.assertEqual(s07["top_stall"], "mio_throttle")
        self.assertAlmostEqual(s07["top_stall_share"], 0.75)
        # Units: microseconds and GHz.
        self.assertAlmostEqual(s14["duration_s"], 1.06e-3)
        self.assertAlmostEqual(s14["sm_clock_mhz"], 1460.0)
        self.assertAlmostEqual(s14["tensor_pct"], 69.1)
        self.assertEqual(s14["top_stall"], "gmma")
        self.assertEqual(s14["metrics"][pl.ROLES["tensor_pct"]], 69.1)

    def test_roofs(self):
        doc = pl.build(self.dir)
        r = doc["roofs"]
        clock = 1980e6 * 132
        compute = {c["key"]: c for c in r["compute"]}
        self.assertEqual(list(compute), ["ffma", "tf32", "tf32x3", "int8"])
        self.assertAlmostEqual(compute["ffma"]["tflops"], 2 * 128 * clock / 1e12)
        self.assertAlmostEqual(compute["ffma"]["tflops"], DEVICE["ffma_peak_tflops"])
        self.assertAlmostEqual(compute["tf32"]["tflops"], 2 * 1024 * clock / 1e12)
        self.assertAlmostEqual(compute["tf32x3"]["tflops"], compute["tf32"]["tflops"] / 3)
        self.assertAlmostEqual(compute["int8"]["tflops"], 2 * 4096 * clock / 8 / 1e12)
        self.assertEqual(compute["int8"]["label"], "INT8 / 8")
        self.assertIn("14_ozaki_int8's moduli", compute["int8"]["rule"])
        bw = {b["key"]: b["gbs"] for b in r["bandwidth"]}
        self.assertAlmostEqual(bw["dram"], 1280 * 2.619e9 / 1e9)
        self.assertAlmostEqual(bw["l2"], 5120 * 1.75e9 / 1e9)  # the highest L2 clock seen
        self.assertAlmostEqual(bw["smem"], 132 * 128 * 1.98e9 / 1e9)
        self.assertEqual(doc["clocks"]["profiled_sm_clock_mhz"], {"min": 1460.0, "median": 1980.0, "max": 1980.0})

    def test_int8_products_from_config(self):
        write_run_dir(self.dir, config14="10 moduli (33-bit fixed point)")
        compute = {c["key"]: c for c in pl.build(self.dir)["roofs"]["compute"]}
        self.assertEqual(compute["int8"]["label"], "INT8 / 10")
        self.assertAlmostEqual(compute["int8"]["tflops"], 2 * 4096 * 1980e6 * 132 / 10 / 1e12)
        write_run_dir(self.dir, config14="")
        compute = {c["key"]: c for c in pl.build(self.dir)["roofs"]["compute"]}
        self.assertEqual(compute["int8"]["label"], "INT8 / 8")
        self.assertIn("no profiled kernel states its moduli", compute["int8"]["rule"])

    def test_unknown_capability_has_ffma_roof_only_where_known(self):
        write_run_dir(self.dir, device=dict(DEVICE, compute_capability="8.6", ffma_peak_tflops=None))
        self.assertEqual([c["key"] for c in pl.build(self.dir)["roofs"]["compute"]], ["ffma"])

    def test_markdown(self):
        doc = pl.build(self.dir)
        text = pl.markdown(doc, "roof.png")
        table = [ln for ln in text.splitlines() if ln.startswith("| ")]
        self.assertTrue(table[0].startswith("| kernel | size | TFLOP/s | issue slots | FMA pipe | tensor pipe | "
                                            "DRAM GB/s | DRAM % of peak |"))
        self.assertEqual(len(table), 1 + 4)  # header, three kernels, one not profiled
        cells = [c.strip() for c in table[1].strip("|").split("|")]
        self.assertEqual(cells[:3], ["00_cublas", "4096³", pl.sr.fmt_tflops(FLOP / 2.6843e-3 / 1e12)])
        self.assertEqual(cells[3:6], ["90.0 %", "80.0 %", "0.0 %"])
        self.assertEqual(cells[-1], "not_selected (75 %)")
        self.assertEqual(len([c for c in table[4].strip("|").split("|")]), 11)
        self.assertIn("not profiled: ncu failed with exit status 1", table[4])
        self.assertIn("![Roofline of the ladder](roof.png)", text)
        self.assertIn("INT8 / 8:", text)
        self.assertIn("`x__made_up.sum`", text)
        self.assertIn("`sm80_xmma_gemm_f32f32`", text)
        self.assertIsNone(re.search(check_paths._UNIX, text))

    def test_bad_dir(self):
        with self.assertRaises(pl.Error):
            pl.build(os.path.join(self.tmp, "nothing"))
        with open(os.path.join(self.dir, pl.MANIFEST), "w") as f:
            json.dump({"schema": "other"}, f)
        with self.assertRaisesRegex(pl.Error, "not a manifest"):
            pl.build(self.dir)

    def test_cli_is_byte_stable(self):
        outs = []
        for i in range(2):
            out = os.path.join(self.tmp, f"out{i}")
            argv = [sys.executable, TOOL, "report", self.dir, "--out-json", os.path.join(out, "p.json"),
                    "--out-md", os.path.join(out, "p.md")]
            if HAVE_MPL:
                argv += ["--plot", os.path.join(out, "fig", "roof.png")]
            proc = subprocess.run(argv, capture_output=True, text=True)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            outs.append(out)
        names = ["p.json", "p.md"] + ([os.path.join("fig", "roof.png")] if HAVE_MPL else [])
        for name in names:
            self.assertEqual(sha(os.path.join(outs[0], name)), sha(os.path.join(outs[1], name)), name)
        with open(os.path.join(outs[0], "p.md"), encoding="utf-8") as f:
            md = f.read()
        if HAVE_MPL:
            self.assertIn("](fig/roof.png)", md)
            with open(os.path.join(outs[0], "fig", "roof.png"), "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        else:
            print(NO_MPL, file=sys.stderr)
        with open(os.path.join(outs[0], "p.json"), encoding="utf-8") as f:
            self.assertEqual(json.load(f)["kernels"][2]["label"], "14_ozaki_int8")
        proc = subprocess.run([sys.executable, TOOL, "report", os.path.join(self.tmp, "nothing")],
                              capture_output=True, text=True)
        self.assertEqual(proc.returncode, 1)
        self.assertIn("profile_ladder: error: cannot read", proc.stderr)


class FilterTest(unittest.TestCase):
    REGISTRY = [
        {"number": 0, "name": "cublas", "label": "00_cublas", "baseline": True, "step": 0, "functions": None,
         "gemm_function": None, "launched_functions": [], "bench_cap": None},
        {"number": 1, "name": "naive", "label": "01_naive", "baseline": False, "step": 1, "functions": "sgemm_01_",
         "gemm_function": None, "launched_functions": ["sgemm_01_"], "bench_cap": 2048},
        {"number": 10, "name": "every_shape", "label": "10_every_shape", "baseline": False, "step": 10,
         "functions": "sgemm_10_", "gemm_function": None, "launched_functions": ["sgemm_10_"], "bench_cap": None},
        {"number": 12, "name": "3xtf32_wgmma", "label": "12_3xtf32_wgmma", "baseline": False, "step": 12,
         "functions": "sgemm_12_", "gemm_function": "sgemm_12_3xtf32_wgmma", "launched_functions": ["sgemm_12_"]},
        {"number": 13, "name": "one_call", "label": "13_one_call", "baseline": False, "step": 13,
         "functions": "sgemm_13_", "gemm_function": None,
         "launched_functions": ["sgemm_13_", "sgemm_10_", "sgemm_12_"]},
        {"number": 1200, "name": "3xtf32_wgmma_1x", "label": "1200_3xtf32_wgmma_1x", "baseline": False, "step": 12,
         "functions": "sgemm_12_", "gemm_function": "sgemm_12_3xtf32_wgmma", "launched_functions": ["sgemm_12_"],
         "tuning_variant": True},
    ]

    def k(self, number):
        return next(k for k in self.REGISTRY if k["number"] == number)

    def test_filters(self):
        reg = self.REGISTRY
        self.assertEqual(pl.kernel_filter(self.k(0), reg), ("[Gg][Ee][Mm][Mm]", "demangled"))
        self.assertEqual(pl.kernel_filter(self.k(1), reg), ("sgemm_01_", "function"))
        regex, base = pl.kernel_filter(self.k(12), reg)
        self.assertEqual(base, "function")
        self.assertTrue(re.search(regex, "sgemm_12_3xtf32_wgmma"))
        self.assertTrue(re.search(regex, "void sgemm_12_3xtf32_wgmma<128, 128>(int)"))
        self.assertFalse(re.search(regex, "sgemm_12_3xtf32_wgmma_split"))
        # Step 13 runs step 10's or step 12's GEMM, never a GEMM of its own: theirs, not its layout passes.
        regex, _ = pl.kernel_filter(self.k(13), reg)
        self.assertEqual(regex, "(sgemm_10_)|(sgemm_12_3xtf32_wgmma($|[^_a-z0-9]))")
        for name, hit in (("sgemm_10_every_shape_tile", True), ("sgemm_12_3xtf32_wgmma", True),
                          ("sgemm_12_3xtf32_wgmma_split", False), ("sgemm_13_one_call_transpose", False)):
            self.assertEqual(bool(re.search(regex, name)), hit, name)

    def test_bench_cap(self):
        self.assertEqual(pl.profiled_size(self.k(1), (4096, 4096, 4096)), (2048, 2048, 2048))
        self.assertEqual(pl.profiled_size(self.k(1), (1024, 1024, 1024)), (1024, 1024, 1024))
        self.assertEqual(pl.profiled_size(self.k(10), (4096, 4096, 4096)), (4096, 4096, 4096))

    def test_labels(self):
        self.assertEqual(pl.short_label(dict(self.k(0), baseline=True)), "cuBLAS")
        self.assertEqual(pl.short_label({"label": "09a_cp_async_pipeline", "name": "x", "baseline": False,
                                         "number": 991}), "09a")


class RatesTest(unittest.TestCase):
    """The script's per-SM rates against kernels/common/gpu_rates.h itself, at every compute capability."""

    PROGRAM = textwrap.dedent("""\
        #include <cstdio>
        #include "common/gpu_rates.h"
        int main() {
            for (int cc = 0; cc <= 130; ++cc)
                std::printf("%d %.1f %.1f %.1f\\n", cc, sgemm::ffma_peak_flops(cc, 1, 1.0),
                            sgemm::tf32_tensor_peak_flops(cc, 1, 1.0), sgemm::int8_tensor_peak_ops(cc, 1, 1.0));
        }
        """)

    def test_mirror_matches_header(self):
        cxx = next((c for c in (os.environ.get("CXX"), "c++", "g++", "clang++") if c and shutil.which(c)), None)
        if cxx is None:
            self.skipTest("no C++ compiler ($CXX, c++, g++, clang++): the rates mirror is not checked")
        with tempfile.TemporaryDirectory() as tmp:
            src, exe = os.path.join(tmp, "rates.cpp"), os.path.join(tmp, "rates")
            with open(src, "w") as f:
                f.write(self.PROGRAM)
            proc = subprocess.run([cxx, "-std=c++20", "-I", os.path.join(REPO, "kernels"), src, "-o", exe],
                                  capture_output=True, text=True)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            out = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
        lines = out.split()
        self.assertEqual(len(lines), 131 * 4)
        for i in range(131):
            cc, ffma, tf32, int8 = lines[4 * i:4 * i + 4]
            cc = int(cc)
            self.assertEqual(float(ffma), 2.0 * pl.fp32_lanes_per_sm(cc), f"FFMA at cc {cc}")
            self.assertEqual(float(tf32), 2.0 * pl.tf32_fma_per_sm_clock(cc), f"TF32 at cc {cc}")
            self.assertEqual(float(int8), 2.0 * pl.int8_mac_per_sm_clock(cc), f"INT8 at cc {cc}")

    def test_compute_capability(self):
        self.assertEqual(pl.compute_capability("9.0"), 90)
        self.assertEqual(pl.compute_capability("12.0"), 120)
        self.assertIsNone(pl.compute_capability(None))


# ---------------------------------------------------------------- run, with a fake runner and a fake ncu

FAKE_RUNNER = r'''
import json, os, sys
KERNELS = [
    {"number": 0, "name": "cublas", "label": "00_cublas", "baseline": True, "step": 0, "functions": None,
     "gemm_function": None, "launched_functions": [], "bench_cap": None, "tuning_variant": False},
    {"number": 1, "name": "naive", "label": "01_naive", "baseline": False, "step": 1, "functions": "sgemm_01_",
     "gemm_function": None, "launched_functions": ["sgemm_01_"], "bench_cap": 2048, "tuning_variant": False},
    {"number": 991, "name": "cp_async_pipeline", "label": "09a_cp_async_pipeline", "baseline": False, "step": 9,
     "functions": "sgemm_09_", "gemm_function": None, "launched_functions": ["sgemm_09_"], "bench_cap": None,
     "tuning_variant": False},
    {"number": 9, "name": "cp_async_multistage", "label": "09_cp_async_multistage", "baseline": False, "step": 9,
     "functions": "sgemm_09_", "gemm_function": None, "launched_functions": ["sgemm_09_"], "bench_cap": None,
     "tuning_variant": False},
    {"number": 14, "name": "ozaki_int8", "label": "14_ozaki_int8", "baseline": False, "step": 14,
     "functions": "sgemm_14_", "gemm_function": "sgemm_14_ozaki_int8", "launched_functions": ["sgemm_14_"],
     "bench_cap": None, "tuning_variant": False},
    {"number": 99, "name": "cublaslt", "label": "99_cublaslt", "baseline": True, "step": 99, "functions": None,
     "gemm_function": None, "launched_functions": [], "bench_cap": None, "tuning_variant": False},
    {"number": 1400, "name": "ozaki_int8_variant", "label": "1400_ozaki_int8_variant", "baseline": False,
     "step": 14, "functions": "sgemm_14_", "gemm_function": "sgemm_14_ozaki_int8",
     "launched_functions": ["sgemm_14_"], "bench_cap": None, "tuning_variant": True},
]
args = sys.argv[1:]
def opt(name):
    return args[args.index(name) + 1] if name in args else None
if "--list" in args:
    keys = opt("--kernel")
    chosen = KERNELS if keys is None else [k for k in KERNELS if str(k["number"]) in keys.split(",")]
    print(json.dumps({"schema": "sgemm-steps-list/1", "tuning_from": 100, "tuned_baseline": 99, "kernels": chosen}))
    sys.exit(0)
number = int(opt("--kernel"))
m, n, k = (int(v) for v in opt("--size").split(","))
rows = [{"kernel": number, "name": "x", "M": m, "N": n, "K": k,
         "config": "8 moduli (27-bit fixed point)" if number == 14 else ""}]
if opt("--json"):
    with open(opt("--json"), "w") as f:
        json.dump({"schema": "sgemm-steps/2", "device": DEVICE, "results": rows}, f)
print("fake runner ran", " ".join(args))
'''

FAKE_NCU = r'''
import csv, io, json, os, sys
args = sys.argv[1:]
with open(os.environ["FAKE_NCU_LOG"], "a") as log:
    log.write(json.dumps(args) + "\n")
if args == ["--version"]:
    print("NVIDIA (R) Nsight Compute Command Line Profiler\nVersion 2099.1.0.0 (fake)")
    sys.exit(0)
if args[0] == "--import":
    with open(args[1]) as f:
        sys.stdout.write(f.read())
    sys.exit(0)
VALUED = {"--clock-control", "--target-processes", "--export", "--metrics", "--kernel-name-base", "--kernel-name",
          "--launch-skip", "--launch-count"}
opts, i = {}, 0
while args[i].startswith("--"):
    if args[i] in VALUED:
        opts[args[i]] = args[i + 1]
        i += 2
    else:
        i += 1
app = args[i:]
metrics = opts["--metrics"].split(",")
unknown = [m for m in metrics if m in os.environ.get("FAKE_NCU_UNKNOWN", "").split(",")]
if unknown:
    print(f"==ERROR== Failed to find metric {unknown[0]}")
    sys.exit(1)
import subprocess
subprocess.run([sys.executable] + app, check=True)
# The census matches cuBLAS's 7 launches (1 + 5 warm-ups + 1 timed), the tuned baseline 7 more + 30 tuning.
count = 1 if "--launch-count" in opts else (44 if "99" in app else 7)
names = ["ID", "Kernel Name"] + metrics
out = io.StringIO()
w = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n")
w.writerow(names)
w.writerow(["", ""] + ["nsecond" if m == "gpu__time_duration.sum" else "" for m in metrics])
for r in range(count):
    w.writerow([str(r), "fake_" + opts["--kernel-name"]] + ["1000" for _ in metrics])
with open(opts["--export"] + ".ncu-rep", "w") as f:
    f.write(out.getvalue())
print("==PROF== Profiling \"fake\": 0%....50%....100% - 7 passes")
'''


class RunTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="test-profile-ladder-run-")
        self.runner = self.script("sgemm_runner", "DEVICE = " + repr(DEVICE) + "\n" + FAKE_RUNNER)
        self.ncu = self.script("ncu", FAKE_NCU)
        self.log = os.path.join(self.tmp, "ncu.log")
        self.env = dict(os.environ, FAKE_NCU_LOG=self.log)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def script(self, name, source):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write(f"#!{sys.executable}\n" + source)
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
        return path

    def run_tool(self, *extra):
        out = os.path.join(self.tmp, "prof")
        proc = subprocess.run([sys.executable, TOOL, "run", "--runner", self.runner, "--ncu", self.ncu, "--out", out,
                               *extra], capture_output=True, text=True, env=self.env)
        return proc, out

    def calls(self):
        with open(self.log) as f:
            return [json.loads(ln) for ln in f]

    def test_run_then_report(self):
        self.env["FAKE_NCU_UNKNOWN"] = pl.ROLES["tensor_imma_pct"]
        proc, out = self.run_tool()
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(os.path.join(out, pl.MANIFEST)) as f:
            man = json.load(f)
        # Registry order, every kernel but the tuning variant and the tuned baseline; step 01 at its cap.
        self.assertEqual([k["label"] for k in man["kernels"]],
                         ["00_cublas", "01_naive", "09a_cp_async_pipeline", "09_cp_async_multistage",
                          "14_ozaki_int8"])
        by = {k["label"]: k for k in man["kernels"]}
        self.assertEqual(by["01_naive"]["size"], [2048, 2048, 2048])
        self.assertEqual(by["09_cp_async_multistage"]["size"], [4096, 4096, 4096])
        self.assertEqual(by["01_naive"]["launch_skip"], 6)  # the check launch and 5 warm-ups
        self.assertEqual(by["00_cublas"]["launch_skip"], 6)  # census: the last of 7
        self.assertEqual(by["14_ozaki_int8"]["kernel_name_regex"], "sgemm_14_ozaki_int8($|[^_a-z0-9])")
        self.assertEqual(by["14_ozaki_int8"]["config"], "8 moduli (27-bit fixed point)")
        self.assertEqual(by["00_cublas"]["kernel_name_base"], "demangled")
        self.assertEqual(man["metrics_dropped"], [pl.ROLES["tensor_imma_pct"]])
        self.assertEqual(man["device"]["name"], DEVICE["name"])
        self.assertEqual(man["ncu_version"], "Version 2099.1.0.0 (fake)")
        self.assertTrue(all(k["passes"] == 7 for k in man["kernels"]))
        self.assertEqual(len(re.findall(r"profile_ladder: \[\d/5\]", proc.stderr)), 5)
        self.assertIsNone(re.search(check_paths._UNIX, json.dumps(man)))
        profiled = [c for c in self.calls() if "--launch-count" in c]
        # The first profile met the unknown metric and ran again without it; the others never asked for it.
        self.assertIn(pl.ROLES["tensor_imma_pct"], profiled[0][profiled[0].index("--metrics") + 1])
        self.assertTrue(all(pl.ROLES["tensor_imma_pct"] not in c[c.index("--metrics") + 1] for c in profiled[1:]))
        for c in profiled:
            self.assertEqual(c[c.index("--clock-control") + 1], "none")
            app = c[c.index(self.runner):]
            self.assertEqual(app[app.index("--reps") + 1], "1")
            self.assertIn("--no-check", app)
        doc = pl.build(out)
        self.assertEqual(len(doc["kernels"]), 5)
        self.assertEqual(doc["kernels"][1]["flop"], 2.0 * 2048**3)
        self.assertIn("INT8 / 8", pl.markdown(doc))

    def test_selected_keys_and_failure(self):
        self.env["FAKE_NCU_UNKNOWN"] = ",".join(pl.METRICS)  # every metric refused: no profile at all
        proc, out = self.run_tool("--kernels", "14,1400", "--size", "1024")
        self.assertEqual(proc.returncode, 1)
        with open(os.path.join(out, pl.MANIFEST)) as f:
            man = json.load(f)
        self.assertEqual([k["label"] for k in man["kernels"]], ["14_ozaki_int8", "1400_ozaki_int8_variant"])
        self.assertTrue(all("error" in k for k in man["kernels"]))
        self.assertIn("FAILED", proc.stderr)

    def test_missing_runner(self):
        proc, _ = self.run_tool("--size", "1024x2")
        self.assertEqual(proc.returncode, 2)
        proc = subprocess.run([sys.executable, TOOL, "run", "--runner", os.path.join(self.tmp, "none"), "--ncu",
                               self.ncu, "--out", self.tmp], capture_output=True, text=True)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("runner not found", proc.stderr)


if __name__ == "__main__":
    unittest.main()
