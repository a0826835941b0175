#!/usr/bin/env python3
"""Tests for scripts/report, scripts/bench (and its shape zoo, scripts/sgemm_zoo.py), scripts/tune_table,
scripts/calibrate_planner, scripts/accuracy_table, scripts/energy_table, scripts/ncu_summary.py, the kernel keys of
scripts/sgemm_results.py and the SASS parsing of tests/check_sass.py and scripts/sass_stats (on made-up
SASS text); no GPU and no CUDA tool needed (fake runners and models stand in).

Run from the repository root:  python3 tests/test_report.py
The results JSON here is synthetic: it exists only to test the tools. Registries with a step 13, or a
step renumbered, check that the scripts take their kernels from the data, never from a step number of
their own. The PNG checks are skipped (with a message) when matplotlib is not importable; everything
else always runs.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
import re
import shutil
import stat
import struct
import subprocess
import sys
import tempfile
import textwrap
import unittest
from unittest import mock

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPTS = os.path.join(REPO, "scripts")
REPORT = os.path.join(SCRIPTS, "report")
BENCH = os.path.join(SCRIPTS, "bench")
sys.path.insert(0, SCRIPTS)
import ncu_summary  # noqa: E402
import sgemm_results as sr  # noqa: E402
import sgemm_zoo as zoo  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_paths  # noqa: E402  (its pattern for absolute paths)

try:
    import matplotlib  # noqa: F401

    HAVE_MPL = True
except ImportError:
    HAVE_MPL = False
NO_MPL = "matplotlib is not importable: PNG checks skipped (pip install -r scripts/requirements.txt)"

BEGIN, END = "<!-- results-table:begin -->", "<!-- results-table:end -->"
README = f"# sgemm-steps\n\nIntro text.\n\n{BEGIN}\nold table\n{END}\n\nOutro text.\n"
DOCS_README = f"# Docs\n\nThe ladder:\n\n{BEGIN}\n{END}\n\nMore docs.\n"

SQ1, SQ4 = (1024, 1024, 1024), (4096, 4096, 4096)
IRR = [(4095, 4097, 4093), (3000, 3000, 3000), (4096, 64, 4096)]


def result(kernel, name, size, tflops, pct, status="PASS"):
    m, n, k = size
    ms = 2 * m * n * k / (tflops * 1e12) * 1e3
    return {"kernel": kernel, "name": name, "M": m, "N": n, "K": k, "median_ms": ms, "min_ms": ms,
            "tflops": tflops, "pct_cublas": pct, "rel_err": 1e-7, "bound": 1e-5, "cublas_rel_err": 1e-7,
            "max_abs_diff_cublas": 0.0, "nonfinite": 0, "componentwise_violations": 0, "status": status}


def synthetic_doc():
    """A small made-up sweep: 3 kernels + cuBLAS; kernel 1 capped at 1024^3 work."""
    res = []
    cublas = {SQ1: 40.0, SQ4: 50.7, IRR[0]: 47.5, IRR[1]: 45.25, IRR[2]: 30.0}
    for size, tf in cublas.items():
        res.append(result(0, "cublas", size, tf, 100.0))
    res += [
        result(1, "naive", SQ1, 0.4567, 1.234),
        result(1, "naive", IRR[2], 0.3, 0.75),  # 4096*64*4096 == 1024^3: exactly at the cap, so it runs
        result(2, "smem_tiling", SQ1, 5.5, 13.75),
        result(2, "smem_tiling", SQ4, 7.04, 13.89, status="FAIL"),
        result(2, "smem_tiling", IRR[0], 6.5, 13.7),
        result(2, "smem_tiling", IRR[1], 6.25, 13.8),
        result(2, "smem_tiling", IRR[2], 4.0, 13.3),
        result(3, "warptiling", SQ1, 31.0, 77.5),
        result(3, "warptiling", SQ4, 41.234, 81.3),
        result(3, "warptiling", IRR[0], 33.25, 70.0),
        result(3, "warptiling", IRR[1], 36.2, 80.0),
        result(3, "warptiling", IRR[2], 27.0, 90.0),
    ]
    skipped = [{"kernel": 1, "name": "naive", "M": s[0], "N": s[1], "K": s[2], "cap": 1024}
               for s in (SQ4, IRR[0], IRR[1])]
    sizes = [SQ1, SQ4] + IRR
    return {
        "schema": "sgemm-steps/1",
        "generated_utc": "2026-01-02T03:04:05Z",
        "command": "scripts/bench --sizes ...",
        "device": {"index": 0, "name": "Test GPU 9000 (synthetic)", "compute_capability": "9.0", "sm_count": 100,
                   "sm_clock_max_mhz": 2000, "mem_clock_max_mhz": 3000, "sm_clock_now_mhz": 1900,
                   "mem_clock_now_mhz": 3000, "mem_bus_bits": 4096, "l2_bytes": 50 * 2**20,
                   "global_mem_bytes": 80 * 2**30, "driver_version": "999.1", "cuda_driver": "13.0",
                   "cuda_runtime": "13.0", "cublas": "13.0.2"},
        "settings": {"alpha": 1.0, "beta": 0.0, "warmup": 5, "reps": 20, "seed": 1234, "l2": "flushed",
                     "check": True},
        "kernels": [{"number": 0, "name": "cublas", "idea": "NVIDIA cuBLAS, the reference"},
                    {"number": 1, "name": "naive", "idea": "one thread per element of C"},
                    {"number": 2, "name": "smem_tiling", "idea": "tiles of A and B | staged in shared memory"},
                    {"number": 3, "name": "warptiling", "idea": "warp-level tiles in registers"}],
        "sweep": {"sizes": [list(s) for s in sizes], "square_sizes": [list(SQ1), list(SQ4)],
                  "irregular_sizes": [list(s) for s in IRR], "caps": {"1": 1024}, "skipped": skipped,
                  "runs": [{"M": s[0], "N": s[1], "K": s[2], "command": f"sgemm_runner --size {s[0]},{s[1]},{s[2]}",
                            "returncode": 0} for s in sizes]},
        "nvidia_smi": {"command": "nvidia-smi --query-gpu=...",
                       "before": "name, clocks.current.sm [MHz]\nTest GPU 9000, 1900 MHz\n",
                       "after": "name, clocks.current.sm [MHz]\nTest GPU 9000, 1850 MHz\n"},
        "results": res,
    }


def png_size(path):
    """(width, height) from a PNG's signature and IHDR chunk; raises AssertionError if it is not a PNG."""
    with open(path, "rb") as f:
        head = f.read(33)
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path}: no PNG signature"
    length, ctype = struct.unpack(">I4s", head[8:16])
    assert ctype == b"IHDR" and length == 13, f"{path}: first chunk is not IHDR"
    return struct.unpack(">II", head[16:24])


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


class ReportTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="test-report-")
        self.json = os.path.join(self.tmp, "bench.json")
        with open(self.json, "w") as f:
            json.dump(synthetic_doc(), f)
        self.out = os.path.join(self.tmp, "docs", "results")
        self.readme = os.path.join(self.tmp, "README.md")
        self.docs_readme = os.path.join(self.tmp, "docs", "README.md")
        os.makedirs(os.path.dirname(self.docs_readme))
        for path, text in ((self.readme, README), (self.docs_readme, DOCS_README)):
            with open(path, "w") as f:
                f.write(text)
        self.slug = "test-gpu-9000-synthetic"
        self.md = os.path.join(self.out, self.slug + ".md")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def report(self, *extra, json_path=None, plots=HAVE_MPL):
        cmd = [sys.executable, REPORT, "--json", json_path or self.json, "--out-dir", self.out,
               "--readme", self.readme, "--docs-readme", self.docs_readme] + list(extra)
        if not plots:
            cmd.append("--no-plots")
        return subprocess.run(cmd, capture_output=True, text=True)

    def ok(self, *extra, **kw):
        proc = self.report(*extra, **kw)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return proc

    def read(self, path):
        with open(path, encoding="utf-8") as f:
            return f.read()

    def test_named_tables(self):
        # --table NAME rewrites that marker pair only: a second GPU's tables beside the first one's.
        b2, e2 = "<!-- results-table-h100:begin -->", "<!-- results-table-h100:end -->"
        for path, text in ((self.readme, README), (self.docs_readme, DOCS_README)):
            with open(path, "a") as f:
                f.write(f"\n{b2}\nother table\n{e2}\n")
        self.ok("--table", "results-table-h100", plots=False)
        for path in (self.readme, self.docs_readme):
            text = self.read(path)
            self.assertIn(f"{BEGIN}\n", text)
            self.assertNotIn("other table", text)
            self.assertIn("| 03 | ", text[text.index(b2):text.index(e2)])
        self.assertIn("old table", self.read(self.readme))  # the default pair untouched
        proc = self.report("--table", "results-table-a100", plots=False)
        self.assertEqual(proc.returncode, 1)
        self.assertIn("results-table-a100:begin", proc.stderr)

    def test_markdown_numbers(self):
        self.ok()
        md = self.read(self.md)
        self.assertIn("# SGEMM results: Test GPU 9000 (synthetic)", md)
        for text in ("999.1", "13.0.2", "2026-01-02T03:04:05Z", "1900 MHz at start (max 2000 MHz)",
                     "5 warm-up + 20 timed reps", "L2 flushed", "results checked against a float64 reference"):
            self.assertIn(text, md)
        self.assertNotIn("checked against cuBLAS", md)  # the check is against float64, not cuBLAS
        # Square table rows: TFLOP/s (% of cuBLAS), cuBLAS last, capped and FAIL marked.
        self.assertIn("| 01 | naive | 0.457 (1.2%) | capped |", md)
        self.assertIn("| 02 | smem_tiling | 5.50 (13.8%) | 7.04 (13.9%) **FAIL** |", md)
        self.assertIn("| 03 | warptiling | 31.0 (77.5%) | 41.2 (81.3%) |", md)
        self.assertIn("| 00 | cuBLAS | 40.0 (100.0%) | 50.7 (100.0%) |", md)
        self.assertLess(md.index("| 03 | warptiling |"), md.index("| 00 | cuBLAS |"))
        # Irregular table with the geomean column.
        g3 = math.exp((math.log(70.0) + math.log(80.0) + math.log(90.0)) / 3)
        g2 = math.exp(sum(math.log(p) for p in (13.7, 13.8, 13.3)) / 3)
        self.assertIn(f"| 03 | warptiling | 33.2 (70.0%) | 36.2 (80.0%) | 27.0 (90.0%) | {g3:.1f}% |", md)
        self.assertIn(f"| 02 | smem_tiling | 6.50 (13.7%) | 6.25 (13.8%) | 4.00 (13.3%) | {g2:.1f}% |", md)
        self.assertIn("| 01 | naive | capped | capped | 0.300 (0.75%) | 0.75% (1 of 3 sizes) |", md)
        self.assertIn("| 4095×4097×4093 | 3000³ | 4096×64×4096 |", md)
        # Notes: caps and the failed check.
        self.assertIn("Skipped by cap: **01_naive** (cap 1024³ work) at 4096³, 4095×4097×4093, 3000³.", md)
        self.assertIn("**02_smem_tiling** FAILED its correctness check at 4096³", md)
        self.assertIn("| after | Test GPU 9000 | 1850 MHz |", md)  # nvidia-smi after the sweep
        if HAVE_MPL:
            self.assertIn(f"]({self.slug}-tflops.png)", md)
            self.assertIn(f"]({self.slug}-4096.png)", md)

        readme = self.read(self.readme)
        self.assertTrue(readme.startswith("# sgemm-steps\n\nIntro text.\n\n" + BEGIN + "\n"))
        self.assertTrue(readme.endswith(END + "\n\nOutro text.\n"))
        self.assertNotIn("old table", readme)
        # The synthetic sweep ran no tuned baseline: its column says so with a dash.
        self.assertIn(f"| 03 | warptiling | 41.2 | 81.3% | — | {g3:.1f}% |", readme)
        self.assertIn("| 02 | smem_tiling | 7.04 (FAIL) | 13.9% |", readme)
        self.assertIn("| 01 | naive | capped | capped | capped | 0.75% (1 of 3 sizes) |", readme)
        self.assertIn("| 00 | cuBLAS (reference) | 50.7 | 100.0% | — | 100.0% |", readme)
        self.assertIn(f"[docs/results/{self.slug}.md](docs/results/{self.slug}.md)", readme)

        docs = self.read(self.docs_readme)
        self.assertIn("| 03 | [warptiling](kernels/03_warptiling.md) | warp-level tiles in registers | 41.2 | 81.3% |",
                      docs)
        self.assertIn("tiles of A and B \\| staged in shared memory", docs)  # '|' escaped in a table cell
        self.assertIn(f"(results/{self.slug}.md)", docs)
        self.assertTrue(docs.endswith(END + "\n\nMore docs.\n"))

    def test_no_absolute_paths_from_an_old_json(self):
        """A JSON from an older bench (or another machine) has absolute paths; the page must not."""
        doc = synthetic_doc()
        doc["command"] = "scripts/bench --runner /home/alice/sgemm/build/runner/sgemm_runner --out /root/out/bench.json"
        for i, r in enumerate(doc["sweep"]["runs"]):
            r["command"] = (f"/work/main/build/runner/sgemm_runner --kernel 1,2,3 --size {r['M']},{r['N']},{r['K']} "
                            f"--json /tmp/sgemm-bench-blh4vmyd/run{i:03d}.json")
        doc["sweep"]["runs"][0].update(returncode=3, error="cannot run /work/main/build/runner/sgemm_runner: gone")
        with open(self.json, "w") as f:
            json.dump(doc, f)
        self.ok(plots=False)
        md = self.read(self.md)
        self.assertIn("`scripts/bench --runner build/runner/sgemm_runner --out bench.json`", md)
        self.assertIn("build/runner/sgemm_runner --kernel 1,2,3 --size 1024,1024,1024 --json run000.json\n", md)
        self.assertIn("build/runner/sgemm_runner --kernel 1,2,3 --size 4096,64,4096 --json run004.json\n", md)
        self.assertIn("failed: cannot run build/runner/sgemm_runner: gone.", md)
        for text in ("/tmp", "/work", "/root", "/home", "sgemm-bench-"):
            self.assertNotIn(text, md)
        self.assertEqual([check_paths.find(line) for line in md.splitlines() if check_paths.find(line)], [])

    def test_geomean(self):
        self.assertAlmostEqual(sr.geomean([70.0, 80.0, 90.0]), (70.0 * 80.0 * 90.0) ** (1 / 3))
        self.assertAlmostEqual(sr.geomean([2.0, 8.0]), 4.0)
        self.assertIsNone(sr.geomean([]))

    @unittest.skipUnless(HAVE_MPL, NO_MPL)
    def test_pngs_are_valid(self):
        self.ok()
        for suffix in ("-tflops.png", "-4096.png"):
            width, height = png_size(os.path.join(self.out, self.slug + suffix))
            self.assertGreater(width, 0)
            self.assertGreater(height, 0)

    def test_deterministic(self):
        paths = [self.md, self.readme, self.docs_readme]
        if HAVE_MPL:
            paths += [os.path.join(self.out, self.slug + s) for s in ("-tflops.png", "-4096.png")]
        else:
            print(f"\n[test_deterministic] {NO_MPL}", file=sys.stderr)
        self.ok()
        first = {p: sha(p) for p in paths}
        self.ok()
        self.assertEqual(first, {p: sha(p) for p in paths})

    def test_missing_markers_fail_and_write_nothing(self):
        with open(self.docs_readme, "w") as f:
            f.write("# Docs without markers\n")
        proc = self.report(plots=False)
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn(BEGIN, proc.stderr)
        self.assertIn(self.docs_readme, proc.stderr)
        self.assertFalse(os.path.exists(self.md), "nothing may be written when a marker is missing")
        self.assertEqual(self.read(self.readme), README)
        # Only an end marker, or two pairs, are errors too.
        for text in (f"x\n{END}\n", f"{BEGIN}\n{END}\n{BEGIN}\n{END}\n", f"{END}\n{BEGIN}\n"):
            with open(self.readme, "w") as f:
                f.write(text)
            self.assertNotEqual(self.report(plots=False).returncode, 0, text)

    def test_bad_json(self):
        proc = self.report(json_path=os.path.join(self.tmp, "missing.json"), plots=False)
        self.assertEqual(proc.returncode, 1)
        self.assertIn("cannot read", proc.stderr)
        bad = os.path.join(self.tmp, "bad.json")
        for text, message in (("{not json", "malformed JSON"), ('{"schema": "other"}', "schema"),
                              ('{"schema": "sgemm-steps/1", "device": {}, "settings": {}, "results": [{}]}',
                               "lacks")):
            with open(bad, "w") as f:
                f.write(text)
            proc = self.report(json_path=bad, plots=False)
            self.assertEqual(proc.returncode, 1, text)
            self.assertIn(message, proc.stderr)
        self.assertFalse(os.path.exists(self.md))

    def test_help(self):
        proc = subprocess.run([sys.executable, REPORT, "--help"], capture_output=True, text=True)
        self.assertEqual(proc.returncode, 0)
        self.assertIn("--no-plots", proc.stdout)


def ceilings_doc(device="Test GPU 9000 (synthetic)"):
    """A made-up sgemm_ceilings --json output: only what scripts/report reads, plus the device."""
    return {"schema": "sgemm-steps-ceilings/1", "device": {"name": device},
            "ffma": {"tflops": 60.5, "theoretical_tflops": 64.0, "median_ms": 10.0},
            "copy": {"gb_per_s": 3900.0, "bytes_per_copy": 2**31}}


def irregular_doc():
    """synthetic_doc() plus steps 08, 09 and 10 on the irregular suite (10 lacks one shape)."""
    doc = synthetic_doc()
    doc["kernels"] += [{"number": 8, "name": "double_buffering", "idea": "two stages"},
                       {"number": 9, "name": "cp_async", "idea": "cp.async"},
                       {"number": 10, "name": "every_shape", "idea": "a tile per shape"}]
    for n, name, pcts in ((8, "double_buffering", (89.0, 91.0, 15.0)), (9, "cp_async", (69.0, 78.0, 8.0)),
                          (10, "every_shape", (95.0, 99.0, None))):
        for size, p in zip(IRR, pcts):
            if p is not None:
                doc["results"].append(result(n, name, size, 0.3 * p, p))
        doc["results"].append(result(n, name, SQ4, 0.5 * n, n * 10.0))
    return doc


def ladder_doc(last, without_irregular=(), variant=True):
    """synthetic_doc()'s device and settings with steps 01 to `last` (names step_NN) and, with `variant`,
    a tuning variant of the last one, all with rows at 4096³ and on the irregular suite (but the steps in
    `without_irregular`); step n at n·7 % of cuBLAS."""
    doc = synthetic_doc()
    doc["tuning_from"] = 100
    steps = [(n, f"step_{n:02d}", False) for n in range(1, last + 1)]
    steps += [(last * 100, f"step_{last:02d}_variant", True)] if variant else []
    doc["kernels"] = doc["kernels"][:1] + [{"number": n, "name": name, "idea": name, "tuning_variant": tv}
                                           for n, name, tv in steps]
    doc["results"] = [r for r in doc["results"] if r["kernel"] == 0]
    for n, name, _ in steps:
        for size in [SQ4] + ([] if n in without_irregular else IRR):
            doc["results"].append(result(n, name, size, 0.3 * n, 7.0 * n))
    doc["sweep"].update(caps={}, skipped=[])
    return doc


def tensor_core_doc():
    """irregular_doc() plus step 12 (FP32 via tensor cores, above the FFMA ceiling at 4096^3) and its
    TF32 tuning experiment 1200 (status TF32)."""
    doc = irregular_doc()
    doc["tuning_from"] = 100
    doc["kernels"] += [{"number": 12, "name": "3xtf32_wgmma", "idea": "3xTF32", "precision": "fp32 via tensor cores"},
                       {"number": 1200, "name": "3xtf32_wgmma_1xtf32", "idea": "1xTF32", "precision": "tf32",
                        "tuning_variant": True}]
    for size, tf, p in ((SQ1, 45.0, 112.5), (SQ4, 70.0, 138.1), (IRR[0], 60.0, 126.3)):
        doc["results"].append(result(12, "3xtf32_wgmma", size, tf, p))
    doc["results"].append(result(1200, "3xtf32_wgmma_1xtf32", SQ4, 150.0, 295.9, status="TF32"))
    return doc


class ReportPlotsTest(unittest.TestCase):
    """The roofline (--ceilings) and irregular-suite plots."""

    setUp, tearDown, report, ok, read = (ReportTest.setUp, ReportTest.tearDown, ReportTest.report, ReportTest.ok,
                                         ReportTest.read)

    def write(self, name, doc):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            json.dump(doc, f)
        return path

    def test_intensity(self):
        mod = sr.load_script(REPORT, "report_mod")
        self.assertAlmostEqual(mod.compulsory_intensity((4096, 4096, 4096)), 4096 / 6)
        self.assertAlmostEqual(mod.compulsory_intensity((2, 3, 4)), 2 * 24 / (4 * (8 + 12 + 6)))

    def test_no_ceilings_no_roofline(self):
        proc = self.ok()
        self.assertFalse(os.path.exists(os.path.join(self.out, self.slug + "-roofline.png")))
        self.assertNotIn("roofline", self.read(self.md))
        if HAVE_MPL:
            self.assertIn("no --ceilings FILE; skipping the", proc.stderr)
            # Every step of the synthetic sweep has irregular results, and there are fewer than five.
            self.assertIn("% of cuBLAS per irregular shape for steps 01, 02, 03, cuBLAS", self.read(self.md))

    def test_irregular_plot_rule(self):
        """The plot compares the last five steps with irregular results, whatever their numbers: a step 13
        joins it, a step without irregular rows and a tuning variant do not."""
        mod = sr.load_script(REPORT, "report_irr_mod")
        doc = ladder_doc(13, without_irregular=(11,))
        self.assertEqual([k["number"] for k in mod.irregular_kernels(mod.Model(doc))], [8, 9, 10, 12, 13])
        doc = ladder_doc(4)
        self.assertEqual([k["number"] for k in mod.irregular_kernels(mod.Model(doc))], [1, 2, 3, 4])
        # No irregular rows at all: no plot.
        doc["results"] = [r for r in doc["results"] if (r["M"], r["N"], r["K"]) not in IRR]
        doc["sweep"]["irregular_sizes"] = []
        self.assertEqual(mod.irregular_kernels(mod.Model(doc)), [])
        self.ok(json_path=self.write("no-irr.json", doc))
        self.assertFalse(os.path.exists(os.path.join(self.out, self.slug + "-irregular.png")))
        self.assertNotIn("irregular.png", self.read(self.md))

    def test_existing_outputs_unchanged_by_ceilings(self):
        """--ceilings adds the roofline and its caption; every other output keeps its bytes."""
        self.ok()
        paths = [self.readme, self.docs_readme]
        if HAVE_MPL:
            paths += [os.path.join(self.out, self.slug + s) for s in ("-tflops.png", "-4096.png")]
        before = {p: sha(p) for p in paths}
        md_before = self.read(self.md)
        self.ok("--ceilings", self.write("ceilings.json", ceilings_doc()))
        self.assertEqual(before, {p: sha(p) for p in paths})
        md = self.read(self.md)
        if HAVE_MPL:
            start = md.index(f"![Roofline at 4096³]({self.slug}-roofline.png)\n\nRoofline at 4096³: x is the")
            end = md.index("\n\n", md.index("Ceilings from ceilings.json", start)) + 2
            self.assertEqual(md[:start] + md[end:], md_before, "the roofline block is all that --ceilings adds")
            block = md[start:end]
            self.assertIn("compulsory-traffic intensity 2·M·N·K / (4·(MK + KN + MN)) = 682.7 FLOP/byte", block)
            self.assertIn("Ceilings from ceilings.json: FFMA ceiling measured 60.5 TFLOP/s; theoretical 64.0 TFLOP/s "
                          "at the maximum SM clock; device-to-device copy 3900 GB/s (bytes read + written).", block)
        else:
            self.assertEqual(md, md_before)

    @unittest.skipUnless(HAVE_MPL, NO_MPL)
    def test_roofline_and_irregular_pngs(self):
        json_path = self.write("bench-irr.json", irregular_doc())
        ceilings = self.write("ceilings.json", ceilings_doc())
        self.ok("--ceilings", ceilings, json_path=json_path)
        for suffix in ("-roofline.png", "-irregular.png"):
            width, height = png_size(os.path.join(self.out, self.slug + suffix))
            self.assertGreater(width, 0)
            self.assertGreater(height, 0)
        md = self.read(self.md)
        self.assertIn(f"![Irregular suite, % of cuBLAS]({self.slug}-irregular.png)", md)
        self.assertIn("% of cuBLAS per irregular shape for steps 02, 03, 08, 09, 10,", md)  # the last five
        self.assertLess(md.index("-roofline.png"), md.index("-irregular.png"))
        # Deterministic: the same inputs give the same bytes.
        paths = [os.path.join(self.out, self.slug + s) for s in ("-roofline.png", "-irregular.png")] + [self.md]
        first = {p: sha(p) for p in paths}
        self.ok("--ceilings", ceilings, json_path=json_path)
        self.assertEqual(first, {p: sha(p) for p in paths})

    def test_tensor_core_kernels(self):
        """Step 12 and a TF32 experiment: named as tensor-core work in the notes, the roofline and the cells."""
        self.ok("--ceilings", self.write("ceilings.json", ceilings_doc()),
                json_path=self.write("bench-tc.json", tensor_core_doc()))
        md = self.read(self.md)
        self.assertIn("- **12_3xtf32_wgmma** computes FP32 products on the tensor cores (precision `fp32 via tensor "
                      "cores`), held to the same error bound as the FFMA steps. The FFMA ceiling does not bound it", md)
        self.assertIn("- **1200_3xtf32_wgmma_1xtf32** multiplies once in TF32 on the tensor cores", md)
        self.assertIn("| 1200 | 3xtf32_wgmma_1xtf32 | — | 150 (295.9%) (TF32) |", md)
        self.assertNotIn("1xtf32** FAILED", md)  # status TF32 is no failure
        ladder = self.read(self.docs_readme)
        self.assertIn("| 12 | [3xtf32_wgmma](kernels/12_3xtf32_wgmma.md) | 3xTF32 | 70.0 | 138.1% |", ladder)
        self.assertNotIn("1200", ladder)
        if HAVE_MPL:
            self.assertIn("Hollow markers (12_3xtf32_wgmma, 1200_3xtf32_wgmma_1xtf32): products computed on the "
                          "tensor cores", md)
            # The last five steps; the tuning variant 1200 is none.
            self.assertIn("% of cuBLAS per irregular shape for steps 03, 08, 09, 10, 12,", md)
            for suffix in ("-roofline.png", "-tflops.png", "-4096.png", "-irregular.png"):
                self.assertGreater(png_size(os.path.join(self.out, self.slug + suffix))[0], 0)

    @unittest.skipUnless(HAVE_MPL, NO_MPL)
    def test_ceilings_from_another_device_warns(self):
        proc = self.ok("--ceilings", self.write("c.json", ceilings_doc(device="Other GPU")))
        self.assertIn("was measured on Other GPU", proc.stderr)

    @unittest.skipUnless(HAVE_MPL, NO_MPL)
    def test_bad_ceilings(self):
        for text, message in (("{oops", "malformed JSON"), ('{"schema": "sgemm-steps/1"}', "not an sgemm_ceilings"),
                              ('{"schema": "sgemm-steps-ceilings/1", "ffma": {}, "copy": {}}', "lacks")):
            path = os.path.join(self.tmp, "bad-ceilings.json")
            with open(path, "w") as f:
                f.write(text)
            proc = self.report("--ceilings", path)
            self.assertEqual(proc.returncode, 1, text)
            self.assertIn(message, proc.stderr)
            self.assertFalse(os.path.exists(self.md), "nothing may be written when an input is bad")
        proc = self.report("--ceilings", os.path.join(self.tmp, "missing.json"))
        self.assertEqual(proc.returncode, 1)
        self.assertIn("cannot read", proc.stderr)


FAKE_RUNNER = r'''
import json, os, sys
# (number, name, idea, step): the registry; FAKE_RUNNER_MORE (a JSON list of such) registers more.
KERNELS = [(0, "cublas", "NVIDIA cuBLAS (reference)", 0), (1, "naive", "one thread per element", 1),
           (2, "coalesced", "coalesced global loads", 2), (3, "tiled", "shared-memory tiles", 3),
           (103, "tiled_noedge", "step 03 without edge handling", 3)]
KERNELS += [tuple(k) for k in json.loads(os.environ.get("FAKE_RUNNER_MORE", "[]"))]
BENCH_CAPS = {"naive": 2048, "coalesced": 4096}  # registered bench_cap of the slow kernels
args = sys.argv[1:]
with open(os.environ["FAKE_RUNNER_LOG"], "a") as log:
    log.write(json.dumps(args) + "\n")
opt = lambda key, default=None: args[args.index(key) + 1] if key in args else default
if "--list" in args:  # with --kernel KEYS, those it selects (the runner's contract), cuBLAS where named
    chosen = KERNELS
    if opt("--kernel") is not None:
        chosen = []
        for key in opt("--kernel").split(","):
            found = [k for k in KERNELS if key == "all" or (int(key) == k[0] if key.isdigit()
                                                             else key in (k[1], f"{k[0]:02d}_{k[1]}"))]
            if not found:
                print(f"sgemm_runner: error: unknown kernel '{key}'. Valid kernels (number or name): ...",
                      file=sys.stderr)
                sys.exit(2)
            chosen += [k for k in found if k not in chosen]
    print(json.dumps({"schema": "sgemm-steps-list/1", "tuning_from": 100,
                      "kernels": [{"number": n, "name": name, "label": f"{n:02d}_{name}", "idea": idea,
                                   "requirements": {"min_cc": 0, "needs_sm90a": False}, "precision": "fp32",
                                   "tuning_variant": n >= 100, "tunable": False, "step": step,
                                   "functions": f"sgemm_{step:02d}_" if n else None, "gemm_function": None,
                                   "sass": None, "bench_cap": BENCH_CAPS.get(name)}
                                  for n, name, idea, step in sorted(chosen)]}))
    sys.exit(0)
sizes = [tuple(int(x) for x in args[i + 1].split(",")) for i, a in enumerate(args) if a == "--size"]
if (13, 64, 64) in sizes:  # names its own path and its --json path, as a real error message may
    print(f"CUDA error: out of memory (fake) in {sys.argv[0]} writing {opt('--json')}", file=sys.stderr)
    sys.exit(3)
wanted = [int(x) for x in opt("--kernel").split(",")]
# The tuned baseline (99, where registered) runs after cuBLAS unless --no-tuned-baseline, or where named.
tuned = [99] if any(k[0] == 99 for k in KERNELS) and ("--no-tuned-baseline" not in args or 99 in wanted) else []
rows = []
for m, n, k in sizes:  # every --size, in order, as the runner does (less FAKE_RUNNER_SKIP's, for a broken one)
    if f"{m},{n},{k}" == os.environ.get("FAKE_RUNNER_SKIP"):
        continue
    flop = 2.0 * m * n * k
    cublas_ms = flop / 40e12 * 1e3
    roof_ms = max(flop / 60e12, 4.0 * (m * k + k * n + m * n) / 3e12) * 1e3
    for number in [0] + tuned + [w for w in wanted if w not in (0, 99)]:
        name = {kn: name for kn, name, _, _ in KERNELS}[number]
        ms = cublas_ms * (1 if number == 0 else 1 / 1.05 if number == 99 else 10.0 / number)
        row = {"kernel": number, "name": name, "M": m, "N": n, "K": k, "median_ms": ms, "min_ms": ms,
               "tflops": flop / ms / 1e9, "pct_cublas": cublas_ms / ms * 100, "rel_err": 0.0, "bound": 1e-5,
               "cublas_rel_err": 0.0, "max_abs_diff_cublas": 0.0, "nonfinite": 0,
               "componentwise_violations": 0, "status": "PASS", "config": f"fake config {number}"}
        if not os.environ.get("FAKE_RUNNER_NO_ROOF"):
            row.update(roof_ms=roof_ms, pct_roof=100 * roof_ms / ms,
                       roof_bound="flop" if flop / 60e12 >= 4.0 * (m * k + k * n + m * n) / 3e12 else "dram")
        rows.append(row)
m = sizes[0][0]
doc = {"schema": "sgemm-steps/1", "generated_utc": "2026-01-01T00:00:00Z", "command": " ".join(sys.argv),
       "device": {"index": 0, "name": "Fake GPU", "sm_clock_max_mhz": 2000, "sm_clock_now_mhz": 1500 + m % 7,
                  "mem_clock_now_mhz": 3000, "driver_version": "1.0", "cublas": "0.0"},
       "settings": {"alpha": 1.0, "beta": 0.0, "warmup": int(opt("--warmup", 5)), "reps": int(opt("--reps", 20)),
                    "seed": 1234, "l2": "flushed", "check": True},
       "results": rows}
if not os.environ.get("FAKE_RUNNER_NO_ROOF"):
    doc["roofline"] = {"ffma_peak_tflops": 60.0, "dram_gbs_measured": 3000.0}
if opt("--json"):
    with open(opt("--json"), "w") as f:
        json.dump(doc, f)
'''


def python_script(path, source):
    """`source` as an executable script at `path` (a fake runner or model) run by this Python; `path`."""
    with open(path, "w") as f:
        f.write(f"#!{sys.executable}\n" + textwrap.dedent(source))
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    return path


class BenchTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="test-bench-")
        self.runner = python_script(os.path.join(self.tmp, "fake_runner"), FAKE_RUNNER)
        self.log = os.path.join(self.tmp, "calls.jsonl")
        self.out = os.path.join(self.tmp, "bench.json")
        self.env = dict(os.environ, FAKE_RUNNER_LOG=self.log, PATH=os.environ.get("PATH", ""))

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def bench(self, *args):
        cmd = [sys.executable, BENCH, "--runner", self.runner, "--out", self.out] + list(args)
        return subprocess.run(cmd, capture_output=True, text=True, env=self.env)

    def calls(self):
        with open(self.log) as f:
            return [json.loads(line) for line in f]

    def report_with_readmes(self):
        """scripts/report on the bench output, with README copies in the temporary folder; its process."""
        readme, docs = os.path.join(self.tmp, "README.md"), os.path.join(self.tmp, "docs-README.md")
        for path, text in ((readme, README), (docs, DOCS_README)):
            with open(path, "w") as f:
                f.write(text)
        proc = subprocess.run([sys.executable, REPORT, "--json", self.out, "--out-dir", self.tmp, "--readme", readme,
                               "--docs-readme", docs, "--no-plots"], capture_output=True, text=True)
        return proc, readme, docs

    def test_caps_and_merge(self):
        proc = self.bench("--sizes", "128", "256,256,256", "512,512,512", "300,300,300",
                          "--cap", "1=256", "--cap", "naive=256", "--cap", "2=none", "--reps", "3")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("[4/4] 300x300x300", proc.stderr)  # progress
        runs = [c for c in self.calls() if "--list" not in c]
        self.assertEqual(len(runs), 4, "one runner invocation per size")
        kernels_at = {tuple(c[c.index("--size") + 1].split(",")): c[c.index("--kernel") + 1] for c in runs}
        self.assertEqual(kernels_at[("128", "128", "128")], "1,2,3")
        self.assertEqual(kernels_at[("256", "256", "256")], "1,2,3")  # 256^3 == cap^3: allowed
        self.assertEqual(kernels_at[("512", "512", "512")], "2,3")
        self.assertEqual(kernels_at[("300", "300", "300")], "2,3")
        self.assertTrue(all("--reps" in c and c[c.index("--reps") + 1] == "3" for c in runs))

        doc = sr.load_results(self.out)
        self.assertEqual(doc["device"]["name"], "Fake GPU")
        self.assertEqual(doc["settings"]["reps"], 3)
        self.assertEqual(len(doc["results"]), 3 + 3 + 2 + 2 + 4)  # kernel rows + a cuBLAS row per size
        for size in ((128,) * 3, (256,) * 3, (512,) * 3, (300,) * 3):
            self.assertIn((0,) + size, {(r["kernel"], r["M"], r["N"], r["K"]) for r in doc["results"]})
        self.assertEqual([k["name"] for k in doc["kernels"]], ["cublas", "naive", "coalesced", "tiled"])
        self.assertEqual(doc["kernels"][3]["idea"], "shared-memory tiles")
        sweep = doc["sweep"]
        self.assertEqual(sweep["caps"], {"1": 256})  # default cap for 2 lifted with 2=none
        self.assertEqual({(s["kernel"], s["M"]) for s in sweep["skipped"]}, {(1, 512), (1, 300)})
        self.assertEqual(sweep["square_sizes"], [[128] * 3, [256] * 3, [512] * 3])
        self.assertEqual(sweep["irregular_sizes"], [[300] * 3])
        self.assertEqual(len(sweep["runs"]), 4)
        # The runner lies outside the repository (in a temporary folder): recorded by its basename.
        self.assertTrue(all(r["command"].startswith("fake_runner --kernel ") for r in sweep["runs"]))
        self.assertEqual([r["command"].split()[-2:] for r in sweep["runs"]],
                         [["--json", f"run{i:03d}.json"] for i in range(4)])
        self.assertEqual(sweep["failed_runs"], 0)

    def test_default_caps_and_kernel_subset(self):
        proc = self.bench("--sizes", "2048", "4096", "--kernels", "naive,3")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        # The runner resolves the keys: bench has no kernel grammar of its own.
        self.assertIn(["--list", "--kernel", "naive,3", "--json", "-"], self.calls())
        runs = [c for c in self.calls() if "--list" not in c]
        self.assertEqual([c[c.index("--kernel") + 1] for c in runs], ["1,3", "3"])  # default cap 1=2048
        doc = sr.load_results(self.out)
        self.assertEqual([k["number"] for k in doc["kernels"]], [0, 1, 3])
        self.assertEqual(doc["sweep"]["skipped"], [{"kernel": 1, "name": "naive", "M": 4096, "N": 4096,
                                                     "K": 4096, "cap": 2048}])

    def test_tuning_variants_only_on_request(self):
        self.assertEqual(self.bench("--sizes", "4096").returncode, 0)
        self.assertIn("leaving out tuning variants 103_tiled_noedge", self.bench("--sizes", "4096").stderr)
        self.assertEqual(self.bench("--sizes", "4096", "--kernels", "all").returncode, 0)
        runs = [c for c in self.calls() if "--list" not in c]
        self.assertEqual([c[c.index("--kernel") + 1] for c in runs], ["2,3", "2,3", "2,3,103"])
        proc, readme, docs = self.report_with_readmes()
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(os.path.join(self.tmp, "fake-gpu.md"), encoding="utf-8") as f:
            self.assertIn("| 103 | tiled_noedge |", f.read())
        for path in (readme, docs):
            with open(path, encoding="utf-8") as f:
                text = f.read()
            self.assertIn("| 03 | ", text)
            self.assertNotIn("tiled_noedge", text, "tuning variants stay out of the README tables")

    def test_recorded_commands_hold_no_local_paths(self):
        """Everything bench writes names no place on this machine: no absolute path, no temporary folder."""
        proc = self.bench("--sizes", "64", "13,64,64", "128", "--reps", "3")
        self.assertEqual(proc.returncode, 1)  # 13x64x64 fails: its error and output tails are recorded too
        runs = [c for c in self.calls() if "--list" not in c]
        self.assertTrue(all(os.path.isabs(c[c.index("--json") + 1]) for c in runs), "the runner really ran "
                        "with its JSON in a temporary folder")
        with open(self.out, encoding="utf-8") as f:
            text = f.read()
        doc = json.loads(text)
        sweep = doc["sweep"]
        self.assertEqual(sweep["runner"], "fake_runner")
        self.assertEqual(sweep["list_command"], "fake_runner --list --json -")
        self.assertEqual(doc["command"], "scripts/bench --runner fake_runner --out bench.json "
                                         "--sizes 64 13,64,64 128 --reps 3")
        self.assertEqual([r["command"] for r in sweep["runs"]],
                         [f"fake_runner --kernel 1,2,3 --size {s} --reps 3 --json run{i:03d}.json"
                          for i, s in enumerate(("64,64,64", "13,64,64", "128,128,128"))])
        bad = [r for r in sweep["runs"] if r.get("error")]
        self.assertEqual(len(bad), 1)
        self.assertIn("out of memory (fake) in fake_runner writing run001.json", bad[0]["stderr_tail"])
        for needle in (self.tmp, tempfile.gettempdir() + os.sep, "sgemm-bench-", REPO):
            self.assertNotIn(needle, text)
        self.assertEqual([(n, check_paths.find(line)) for n, line in enumerate(text.splitlines(), 1)
                          if check_paths.find(line)], [])

    def test_display_path(self):
        self.assertEqual(sr.display_path(os.path.join(sr.REPO_ROOT, "build", "runner", "sgemm_runner")),
                         "build/runner/sgemm_runner")
        self.assertEqual(sr.display_path(os.path.join(tempfile.gettempdir(), "sgemm-bench-x1", "run003.json")),
                         "run003.json")
        self.assertEqual(sr.scrub_paths("/elsewhere/sgemm/build-tuning/runner/sgemm_runner --json=/tmp/x/a.json"),
                         "build-tuning/runner/sgemm_runner --json=a.json")
        self.assertEqual(sr.scrub_paths("/elsewhere/build/x", guess_repo_part=False), "x")
        clean = "TFLOP/s, https://example.com/tmp/x, build/runner/sgemm_runner, $CUDA_HOME/bin, a / b"
        self.assertEqual(sr.scrub_paths(clean), clean)

    def test_failed_invocation_recorded(self):
        proc = self.bench("--sizes", "64", "13,64,64", "128")
        self.assertEqual(proc.returncode, 1)
        self.assertIn("out of memory (fake)", proc.stderr)
        doc = sr.load_results(self.out)
        self.assertEqual(len([c for c in self.calls() if "--list" not in c]), 3, "bench must keep going")
        self.assertEqual(doc["sweep"]["failed_runs"], 1)
        bad = [r for r in doc["sweep"]["runs"] if r.get("error")]
        self.assertEqual(len(bad), 1)
        self.assertEqual(bad[0]["returncode"], 3)
        self.assertEqual({r["M"] for r in doc["results"]}, {64, 128})

    def test_a_new_step_needs_no_edit(self):
        """A kernel registered as step 13 (and a tuning variant of it) shows up in bench's default sweep,
        the stored registry and the report's tables, with nothing but the registry naming it."""
        self.env["FAKE_RUNNER_MORE"] = json.dumps([[13, "next_step", "the step after", 13],
                                                   [1300, "next_step_variant", "a variant of it", 13]])
        proc = self.bench("--sizes", "1024", "4096")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("leaving out tuning variants 103_tiled_noedge, 1300_next_step_variant", proc.stderr)
        runs = [c for c in self.calls() if "--list" not in c]
        self.assertEqual([c[c.index("--kernel") + 1] for c in runs], ["1,2,3,13", "2,3,13"])
        doc = sr.load_results(self.out)
        listed = {k["number"]: k for k in doc["kernels"]}
        self.assertEqual((listed[13]["step"], listed[13]["functions"]), (13, "sgemm_13_"))  # the runner's keys kept
        self.assertNotIn(1300, listed)
        proc, readme, docs = self.report_with_readmes()
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(readme, encoding="utf-8") as f:
            self.assertIn("| 13 | next_step | 52.0 | 130.0% |", f.read())
        with open(docs, encoding="utf-8") as f:
            self.assertIn("| 13 | [next_step](kernels/13_next_step.md) | the step after |", f.read())

    def test_tuned_baseline_runs_like_cublas(self):
        """A runner with the tuned baseline (99): bench names it in no --kernel (the runner times it beside
        cuBLAS), stores it among the kernels and caps it never; the report lists it after cuBLAS as the tuned
        reference, with no page link and outside the irregular plot's steps. --no-tuned-baseline goes to the
        runner and leaves it out."""
        self.env["FAKE_RUNNER_MORE"] = json.dumps([[99, "cublaslt", "cuBLASLt, the fastest algorithm", 99]])
        proc = self.bench("--sizes", "1024", "4096", "--cap", "99=512")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        runs = [c for c in self.calls() if "--list" not in c]
        self.assertEqual([c[c.index("--kernel") + 1] for c in runs], ["1,2,3", "2,3"])
        doc = sr.load_results(self.out)
        self.assertEqual([k["number"] for k in doc["kernels"]], [0, 1, 2, 3, 99])
        self.assertEqual(doc["sweep"]["caps"], {"1": 2048, "2": 4096}, "a baseline is never capped")
        self.assertEqual({r["M"] for r in doc["results"] if r["kernel"] == 99}, {1024, 4096})
        proc, readme, docs = self.report_with_readmes()
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(readme, encoding="utf-8") as f:
            text = f.read()
        self.assertIn("| 99 | cuBLASLt tuned (tuned reference) | 42.0 | 105.0% |", text)
        self.assertLess(text.index("cuBLAS (reference)"), text.index("cuBLASLt tuned"))
        with open(docs, encoding="utf-8") as f:
            text = f.read()
        self.assertIn("| 99 | cuBLASLt tuned (tuned reference) | cuBLASLt, the fastest algorithm |", text)
        self.assertNotIn("kernels/99_cublaslt.md", text)
        report = sr.load_script(REPORT, "report_tuned")
        model = report.Model(doc)
        self.assertEqual([k["number"] for k in model.kernels], [1, 2, 3, 0, 99])
        self.assertNotIn(99, [k["number"] for k in report.irregular_kernels(model)])

        os.remove(self.log)
        proc = self.bench("--sizes", "1024", "--no-tuned-baseline")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        runs = [c for c in self.calls() if "--list" not in c]
        self.assertEqual(len(runs), 1)
        self.assertIn("--no-tuned-baseline", runs[0])
        doc = sr.load_results(self.out)
        self.assertNotIn(99, [k["number"] for k in doc["kernels"]])
        self.assertNotIn(99, [r["kernel"] for r in doc["results"]])

    def test_bad_arguments(self):
        for args, message in ((("--kernels", "nosuch"), "unknown kernel 'nosuch'"),
                              (("--sizes", "1,2"), "bad size"),
                              (("--cap", "9=100"), "--cap 9: sgemm_runner: error: unknown kernel '9'"),
                              (("--cap", "all=100"), "'all' selects 5 kernels; name one"),
                              (("--cap", "1"), "bad --cap")):
            proc = self.bench(*args)
            self.assertEqual(proc.returncode, 2, args)
            self.assertIn(message, proc.stderr)
        proc = subprocess.run([sys.executable, BENCH, "--runner", os.path.join(self.tmp, "nope")],
                              capture_output=True, text=True)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("runner not found", proc.stderr)

    def test_bench_then_report(self):
        self.assertEqual(self.bench("--sizes", "1024", "4096", "4095,4097,4093").returncode, 0)
        proc, readme, docs = self.report_with_readmes()
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(os.path.join(self.tmp, "fake-gpu.md"), encoding="utf-8") as f:
            md = f.read()
        self.assertIn("Skipped by cap: **01_naive** (cap 2048³ work) at 4096³, 4095×4097×4093.", md)
        self.assertIn("| 03 | tiled | 12.0 (30.0%) | 12.0 (30.0%) |", md)


class ZooDrawTest(unittest.TestCase):
    """scripts/sgemm_zoo.py: the shapes of scripts/bench --zoo."""

    def test_deterministic_for_a_seed(self):
        a, rec_a = zoo.draw_zoo(120, 4242)
        b, rec_b = zoo.draw_zoo(120, 4242)
        self.assertEqual(a, b)
        self.assertEqual(rec_a, rec_b)
        c, _ = zoo.draw_zoo(120, 4243)
        self.assertNotEqual([s for s in a if s[3] == "random"], [s for s in c if s[3] == "random"])
        # One family's draws do not depend on which other families (or how many random shapes) are drawn.
        only, _ = zoo.draw_zoo(0, 4242, families=["deep-k"])
        self.assertEqual(only, [s for s in a if s[3] == "deep-k"])

    def test_range_and_default_caps(self):
        shapes, rec = zoo.draw_zoo(300, 99)
        random_shapes = [s[:3] for s in shapes if s[3] == "random"]
        self.assertEqual(len(random_shapes), 300)
        self.assertEqual(rec["count"], 300)
        self.assertEqual(rec["total"], len(shapes))
        for s in random_shapes:
            self.assertTrue(all(1 <= d <= 2**16 for d in s), s)
            self.assertTrue(2e8 <= 2 * s[0] * s[1] * s[2] <= 4e11, s)
            self.assertLessEqual(4 * (s[0] * s[2] + s[2] * s[1] + s[0] * s[1]), 6 * 2**30, s)
        for s in shapes:  # the memory cap holds for the families too
            self.assertLessEqual(zoo.operand_bytes(s[:3]), 6 * 2**30, s)
        self.assertGreater(rec["random"]["outside_flop_window"], 0, "the default window rejects some draws")
        # Log-uniform, not uniform: about a third of the dimensions below 2^8 (uniform would give 0.4 %).
        dims = [d for s in random_shapes for d in s]
        self.assertGreater(sum(d < 256 for d in dims) / len(dims), 0.15)

    def test_custom_caps(self):
        shapes, rec = zoo.draw_zoo(200, 5, families=[], min_flop=1e9, max_flop=1e10, max_bytes=64 * 2**20)
        self.assertEqual(len(shapes), 200)
        for m, n, k, cls in shapes:
            self.assertEqual(cls, "random")
            self.assertTrue(1e9 <= 2 * m * n * k <= 1e10, (m, n, k))
            self.assertLessEqual(4 * (m * k + k * n + m * n), 64 * 2**20, (m, n, k))
        self.assertGreater(rec["random"]["over_memory_cap"], 0, "the memory cap rejected some draws")
        self.assertEqual(rec["caps"], {"dim_min": 1, "dim_max": 65536, "min_flop": 1e9, "max_flop": 1e10,
                                       "max_bytes": 64 * 2**20, "family_max": 16})
        with self.assertRaises(zoo.ZooError):  # impossible caps end with an error, not an endless loop
            zoo.draw_zoo(5, 1, families=[], min_flop=1e15, max_flop=1e15, max_bytes=2**20)
        with self.assertRaises(zoo.ZooError):
            zoo.draw_zoo(5, 1, families=[], min_flop=1e10, max_flop=1e9)

    def test_every_family_and_no_duplicates(self):
        shapes, rec = zoo.draw_zoo(50, 7)
        classes = [s[3] for s in shapes]
        for name in zoo.FAMILIES:
            self.assertIn(name, classes)
            self.assertEqual(rec["families"][name]["count"], classes.count(name))
        sizes = [s[:3] for s in shapes]
        self.assertEqual(len(sizes), len(set(sizes)), "no shape twice")
        by = lambda name: [s[:3] for s in shapes if s[3] == name]  # noqa: E731
        self.assertEqual(by("squares"), [(n, n, n) for n in (128, 256, 512, 1024, 2048, 4096, 8192)])
        self.assertEqual(sorted(by("low-rank")), sorted((mn, mn, k) for mn in (4096, 16384)
                                                        for k in (1, 2, 4, 8, 16, 32, 64)))
        self.assertTrue(all(m <= 512 and n <= 512 and k >= 32768 for m, n, k in by("deep-k")))
        gemv = by("gemv")
        self.assertTrue(any(n == 1 for _, n, _ in gemv) and any(m == 1 for m, _, _ in gemv))
        self.assertTrue(all((m == 1) != (n == 1) and all(1000 <= d <= 16384 for d in (m, n, k) if d != 1)
                            for m, n, k in gemv))
        self.assertTrue(all(all(d % 2 == 1 and 1000 <= d <= 8200 for d in s) for s in by("odd")))
        # small-batch: 63 candidates cut to --family-max 16, drawn from the seed, every M kept.
        small = by("small-batch")
        self.assertEqual(len(small), 16)
        self.assertEqual(rec["families"]["small-batch"]["candidates"], 63)
        self.assertEqual(rec["families"]["small-batch"]["cut_by_family_max"], 47)
        self.assertEqual({m for m, _, _ in small}, {1, 2, 4, 8, 16, 32, 64})
        self.assertTrue(all(n in (4096, 11008, 14336) and k in (4096, 11008, 14336) for _, n, k in small))
        self.assertNotEqual(small, by_seed(8, "small-batch"), "the cut depends on the seed")
        self.assertEqual(len(by_seed(7, "small-batch", family_max=0)), 63)

    def test_duplicates_are_drawn_again(self):
        """A random draw equal to an earlier draw or to a family's shape is drawn again: exactly N random shapes."""
        dims = [64, 64, 64, 64, 64, 64, 128, 128, 128, 100, 100, 100]  # 64³ twice, 128³ (a square), 100³
        with mock.patch.object(zoo, "log_uniform_int", side_effect=dims):
            shapes, rec = zoo.draw_zoo(2, 1, families=["squares"], min_flop=1)
        self.assertEqual([s for s in shapes if s[3] == "random"], [(64, 64, 64, "random"), (100, 100, 100, "random")])
        self.assertEqual(rec["random"]["duplicates"], 2)
        self.assertEqual(rec["random"]["draws"], 4)
        # A shape in two families keeps the first family's class (in FAMILIES order).
        fake = {"squares": [(64, 64, 64), (96, 96, 96)], "odd": [(65, 65, 65), (64, 64, 64)]}
        with mock.patch.object(zoo, "family_shapes", lambda name, seed: fake[name]):
            shapes, rec = zoo.draw_zoo(0, 1, families=["odd", "squares"])
        self.assertEqual(shapes, [(64, 64, 64, "squares"), (96, 96, 96, "squares"), (65, 65, 65, "odd")])
        self.assertEqual((rec["families"]["odd"]["count"], rec["families"]["odd"]["duplicates"]), (1, 1))

    def test_memory_cap_drops_family_shapes(self):
        shapes, rec = zoo.draw_zoo(0, 3, families=["low-rank"], max_bytes=2**30)
        self.assertEqual({s[0] for s in shapes}, {4096}, "16384² C (1 GiB) plus A and B no longer fit")
        self.assertEqual(rec["families"]["low-rank"]["over_memory_cap"], 7)

    def test_families_option(self):
        self.assertEqual(zoo.parse_families(None), list(zoo.FAMILIES))
        self.assertEqual(zoo.parse_families("all"), list(zoo.FAMILIES))
        self.assertEqual(zoo.parse_families("none"), [])
        self.assertEqual(zoo.parse_families("odd,gemv"), ["gemv", "odd"])
        with self.assertRaises(zoo.ZooError):
            zoo.parse_families("gemv,tiny")

    def test_fresh_seeds_differ(self):
        self.assertNotEqual(len({zoo.fresh_seed() for _ in range(4)}), 1)


def by_seed(seed, family, **kw):
    return [s[:3] for s in zoo.draw_zoo(0, seed, families=[family], **kw)[0]]


class BenchZooTest(unittest.TestCase):
    """scripts/bench --zoo with the fake runner: batching, classes, the seed and the zoo record."""

    setUp, tearDown, bench, calls = BenchTest.setUp, BenchTest.tearDown, BenchTest.bench, BenchTest.calls
    report_with_readmes = BenchTest.report_with_readmes

    def runs(self):
        return [c for c in self.calls() if "--list" not in c]

    @staticmethod
    def sizes_of(call):
        return [tuple(int(x) for x in call[i + 1].split(",")) for i, a in enumerate(call) if a == "--size"]

    def test_zoo_batches_classes_and_record(self):
        proc = self.bench("--zoo", "20", "--zoo-seed", "31", "--batch", "8", "--reps", "2")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("zoo seed 31 (from --zoo-seed)", proc.stderr)
        doc = sr.load_results(self.out)
        z = doc["sweep"]["zoo"]
        self.assertEqual((z["seed"], z["seed_source"], z["count"]), (31, "--zoo-seed", 20))
        self.assertEqual(z["caps"]["min_flop"], 2e8)
        self.assertEqual(set(z["families"]), set(zoo.FAMILIES))
        expected, _ = zoo.draw_zoo(20, 31)
        self.assertEqual([(s["M"], s["N"], s["K"], s["class"]) for s in z["shapes"]], expected)
        self.assertEqual(doc["sweep"]["sizes"], [list(s[:3]) for s in expected])
        self.assertEqual(doc["sweep"]["batch"], 8)
        # Every shape runs exactly once, at most 8 to an invocation, with the kernels its caps allow.
        runs = self.runs()
        ran = [s for c in runs for s in self.sizes_of(c)]
        self.assertEqual(sorted(ran), sorted(s[:3] for s in expected))
        self.assertTrue(all(len(self.sizes_of(c)) <= 8 for c in runs))
        self.assertGreater(max(len(self.sizes_of(c)) for c in runs), 1, "sizes are batched")
        self.assertLess(len(runs), len(expected))
        for c in runs:
            numbers = c[c.index("--kernel") + 1]
            for m, n, k in self.sizes_of(c):
                self.assertEqual(numbers, "1,2,3" if m * n * k <= 2048**3 else "2,3" if m * n * k <= 4096**3
                                 else "3", (m, n, k))
        # Every row carries its shape's class; every shape has its cuBLAS row.
        cls = {s[:3]: s[3] for s in expected}
        for r in doc["results"]:
            self.assertEqual(r["class"], cls[(r["M"], r["N"], r["K"])])
        self.assertEqual({(r["M"], r["N"], r["K"]) for r in doc["results"] if r["kernel"] == 0}, set(cls))
        self.assertEqual(len(doc["sweep"]["runs"]), len(runs))
        self.assertTrue(all("sizes" in r or "M" in r for r in doc["sweep"]["runs"]))
        # Each invocation's roofline (the rates behind its rows' pct_roof) is kept with its run record.
        self.assertTrue(all(r["roofline"]["dram_gbs_measured"] == 3000.0 for r in doc["sweep"]["runs"]))

    def test_default_batch(self):
        self.assertEqual(self.bench("--zoo", "40", "--families", "none", "--zoo-seed", "2",
                                    "--no-caps").returncode, 0)
        self.assertEqual([len(self.sizes_of(c)) for c in self.runs()], [16, 16, 8])
        os.remove(self.log)
        self.assertEqual(self.bench("--sizes", "64", "128", "256").returncode, 0)  # not a zoo: one size per run
        self.assertEqual([len(self.sizes_of(c)) for c in self.runs()], [1, 1, 1])
        self.assertNotIn("zoo", sr.load_results(self.out)["sweep"])
        self.assertTrue(all("class" not in r for r in sr.load_results(self.out)["results"]))

    def test_fresh_seed_each_run(self):
        seeds, shapes = [], []
        for _ in range(2):
            proc = self.bench("--zoo", "10", "--families", "none")
            self.assertEqual(proc.returncode, 0, proc.stderr)
            z = sr.load_results(self.out)["sweep"]["zoo"]
            self.assertEqual(z["seed_source"], "drawn")
            self.assertIn(f"zoo seed {z['seed']} (drawn fresh; --zoo-seed {z['seed']} draws these shapes again)",
                          proc.stderr)
            seeds.append(z["seed"])
            shapes.append(z["shapes"])
        self.assertNotEqual(seeds[0], seeds[1])
        self.assertNotEqual(shapes[0], shapes[1])
        # The recorded seed draws the same shapes again; --seed seeds the draw too and reaches the runner.
        self.assertEqual(self.bench("--zoo", "10", "--families", "none", "--zoo-seed", str(seeds[1])).returncode, 0)
        self.assertEqual(sr.load_results(self.out)["sweep"]["zoo"]["shapes"], shapes[1])
        os.remove(self.log)
        self.assertEqual(self.bench("--zoo", "10", "--families", "none", "--seed", str(seeds[1])).returncode, 0)
        z = sr.load_results(self.out)["sweep"]["zoo"]
        self.assertEqual((z["shapes"], z["seed_source"]), (shapes[1], "--seed"))
        self.assertTrue(all(c[c.index("--seed") + 1] == str(seeds[1]) for c in self.runs()))

    def test_families_without_random_shapes_and_caps(self):
        proc = self.bench("--families", "gemv,squares", "--zoo-seed", "1")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        z = sr.load_results(self.out)["sweep"]["zoo"]
        self.assertEqual(z["count"], 0)
        self.assertEqual({s["class"] for s in z["shapes"]}, {"gemv", "squares"})
        self.assertEqual(set(z["families"]), {"gemv", "squares"})
        proc = self.bench("--zoo", "30", "--families", "none", "--zoo-min-flop", "1e9", "--zoo-max-flop", "1e10",
                          "--zoo-max-gib", "0.0625")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        z = sr.load_results(self.out)["sweep"]["zoo"]
        self.assertEqual(z["caps"]["max_bytes"], 64 * 2**20)
        for s in z["shapes"]:
            self.assertTrue(1e9 <= 2 * s["M"] * s["N"] * s["K"] <= 1e10)
            self.assertLessEqual(zoo.operand_bytes((s["M"], s["N"], s["K"])), 64 * 2**20)

    def test_failed_batch_recorded(self):
        proc = self.bench("--sizes", "64", "128", "13,64,64", "256", "--batch", "2")
        self.assertEqual(proc.returncode, 1)
        doc = sr.load_results(self.out)
        runs = doc["sweep"]["runs"]
        self.assertEqual([r.get("sizes") for r in runs], [[[64] * 3, [128] * 3], [[13, 64, 64], [256] * 3]])
        self.assertEqual([r["returncode"] for r in runs], [0, 3])
        self.assertEqual(doc["sweep"]["failed_runs"], 1)
        self.assertIn("13x64x64, 256x256x256: exit 3", proc.stderr)
        rep, readme, docs = self.report_with_readmes()
        self.assertEqual(rep.returncode, 0, rep.stderr)
        with open(os.path.join(self.tmp, "fake-gpu.md"), encoding="utf-8") as f:
            self.assertIn("- Runner invocation for 13×64×64, 256×256×256 failed: exit 3", f.read())

    def test_batch_missing_a_size(self):
        """A runner JSON without one of the batch's sizes is a failed invocation, not a silent gap."""
        self.env["FAKE_RUNNER_SKIP"] = "128,128,128"
        proc = self.bench("--sizes", "64", "128", "256", "--batch", "3")
        self.assertEqual(proc.returncode, 1)
        run, = sr.load_results(self.out)["sweep"]["runs"]
        self.assertEqual(run["error"], "runner JSON has no results for 128x128x128")

    def test_zoo_bad_arguments(self):
        for args, message in ((("--zoo", "-1"), "out of range"),
                              (("--zoo", "5", "--sizes", "64"), "excludes --sizes"),
                              (("--zoo", "5", "--families", "tiny"), "unknown family tiny"),
                              (("--zoo-seed", "3"), "needs --zoo"),
                              (("--zoo", "5", "--batch", "0"), "--batch 0 is out of range"),
                              (("--zoo", "5", "--seed", "abc"), "integer seed"),
                              (("--zoo", "0", "--families", "none"), "no sizes"),
                              (("--zoo", "5", "--families", "none", "--zoo-min-flop", "1e15", "--zoo-max-flop",
                                "1e15", "--zoo-max-gib", "0.001"), "leave too little room")):
            proc = self.bench(*args)
            self.assertEqual(proc.returncode, 2, args)
            self.assertIn(message, proc.stderr, args)

    def test_zoo_then_report(self):
        self.assertEqual(self.bench("--zoo", "12", "--zoo-seed", "5").returncode, 0)
        readme = os.path.join(self.tmp, "README.md")
        with open(readme, "w") as f:
            f.write(README)
        cmd = [sys.executable, REPORT, "--json", self.out, "--out-dir", self.tmp, "--readme", readme,
               "--docs-readme", os.path.join(self.tmp, "missing-README.md")]
        proc = subprocess.run(cmd + ([] if HAVE_MPL else ["--no-plots"]), capture_output=True, text=True)
        self.assertEqual(proc.returncode, 0, proc.stderr)  # a zoo alone needs no README markers
        with open(os.path.join(self.tmp, "fake-gpu-zoo.md"), encoding="utf-8") as f:
            md = f.read()
        self.assertIn("| Seed | 5 (given with --zoo-seed;", md)
        total = len(sr.load_results(self.out)["sweep"]["zoo"]["shapes"])
        self.assertIn(f"| Shapes | {total}: 12 random, {total - 12} from families |", md)
        # Fake timings: kernel n takes 10/n of cuBLAS's time, so n·10 % of cuBLAS at every shape.
        self.assertIn(f"| 03 | tiled | {total} of {total} | 30.0% | 30.0% | 30.0% |", md)
        for n in (1, 2, 3):
            self.assertIn(f"### {n:02d}_", md)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "fake-gpu.md")))
        with open(readme) as f:
            self.assertEqual(f.read(), README, "a zoo leaves the README tables alone")
        if HAVE_MPL:
            for suffix in ("-zoo-cublas.png", "-zoo-roof.png"):
                self.assertGreater(png_size(os.path.join(self.tmp, "fake-gpu" + suffix))[0], 0)
        self.assertIn("| Median % of roof |", md)
        runs = len(sr.load_results(self.out)["sweep"]["runs"])
        self.assertIn(f"| Roof rates | FFMA peak 60.0 TFLOP/s (theoretical); DRAM 3000 GB/s, measured by the runner at "
                      f"the start of each of {runs} invocation(s) |", md)
        # A runner from before the roof fields: the zoo page without % of roof.
        self.env["FAKE_RUNNER_NO_ROOF"] = "1"
        self.assertEqual(self.bench("--zoo", "12", "--zoo-seed", "5").returncode, 0)
        self.assertTrue(all("pct_roof" not in r for r in sr.load_results(self.out)["results"]))
        shutil.rmtree(self.tmp + "/zoo-out", ignore_errors=True)
        cmd[cmd.index("--out-dir") + 1] = self.tmp + "/zoo-out"
        proc = subprocess.run(cmd + ([] if HAVE_MPL else ["--no-plots"]), capture_output=True, text=True)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(os.path.join(self.tmp, "zoo-out", "fake-gpu-zoo.md"), encoding="utf-8") as f:
            md = f.read()
        self.assertNotIn("Median % of roof", md)
        self.assertNotIn("Roof rates", md)
        self.assertIn(f"| 03 | tiled | {total} of {total} | 30.0% | 30.0% | 30.0% |", md)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "zoo-out", "fake-gpu-zoo-roof.png")))


def zoo_doc(roof=True):
    """A made-up zoo of 20 shapes (100+i)×200×300 with known numbers, listed from i = 19 down to 0 (so
    that the sweep's order is not the order of M), classes alternating random (even i) / gemv (odd i):
    kernel 10 at 5·((7i mod 20) + 1) % of cuBLAS (5, 10, …, 100, shuffled), kernel 8 at 50 % everywhere
    (a tie), kernel 1 capped at half the shapes and failing one, kernel 11 N/A at three; pct_roof of
    kernel 10 = i, absent where i mod 4 = 0 and null where i mod 4 = 1; cuBLAS's pct_roof = 60 + i."""
    doc = synthetic_doc()
    doc["kernels"] += [{"number": 8, "name": "double_buffering", "idea": "two stages"},
                       {"number": 10, "name": "every_shape", "idea": "a tile per shape"},
                       {"number": 11, "name": "tma_warp_specialized", "idea": "TMA"}]
    res, shapes, skipped = [], [], []
    for i in reversed(range(20)):
        size = (100 + i, 200, 300)
        cls = "random" if i % 2 == 0 else "gemv"
        shapes.append({"M": size[0], "N": 200, "K": 300, "class": cls})
        rows = [result(0, "cublas", size, 10.0, 100.0), result(8, "double_buffering", size, 5.0, 50.0),
                result(10, "every_shape", size, 1.0, 5.0 * ((7 * i) % 20 + 1))]
        if i < 3:  # not launched there (as a kernel that needs sm_90a on another GPU)
            na = result(11, "tma_warp_specialized", size, 1.0, 1.0, status="N/A")
            na.update(median_ms=None, min_ms=None, tflops=None, pct_cublas=None, not_run_reason="needs sm_90a")
            rows.append(na)
        if i < 10:
            rows.append(result(1, "naive", size, 0.1, 1.0 + i, status="FAIL" if i == 4 else "PASS"))
        else:
            skipped.append({"kernel": 1, "name": "naive", "M": size[0], "N": 200, "K": 300, "cap": 64})
        for r in rows:
            r["class"] = cls
            r["config"] = f"config of {r['kernel']} at {i}"
            if roof:
                r["roof_bound"] = "dram" if i % 2 else "flop"
                r["roof_ms"] = 0.001
                if r["kernel"] == 0:
                    r["pct_roof"] = 60.0 + i
                elif r["kernel"] == 10 and i % 4 == 1:
                    r["pct_roof"] = None
                elif r["kernel"] == 10 and i % 4 > 1:
                    r["pct_roof"] = float(i)
                elif r["kernel"] != 10:
                    r["pct_roof"] = 25.0
        res += rows
    doc["results"] = res
    sizes = [[s["M"], s["N"], s["K"]] for s in shapes]
    doc["sweep"] = {"sizes": sizes, "square_sizes": [], "irregular_sizes": sizes, "caps": {"1": 64},
                    "skipped": skipped, "batch": 16,
                    "zoo": {"seed": 777, "seed_source": "drawn", "count": 10, "total": 20,
                            "caps": {"dim_min": 1, "dim_max": 65536, "min_flop": 2e8, "max_flop": 4e11,
                                     "max_bytes": 6 * 2**30, "family_max": 16},
                            "families": {"gemv": {"count": 10, "candidates": 10, "over_memory_cap": 0,
                                                  "cut_by_family_max": 0, "duplicates": 0}},
                            "random": {"draws": 31, "outside_flop_window": 21, "over_memory_cap": 0,
                                       "duplicates": 0},
                            "shapes": shapes},
                    "runs": [{"sizes": sizes[:16], "command": "sgemm_runner --size ...", "returncode": 0},
                             {"sizes": sizes[16:], "command": "sgemm_runner --size ...", "returncode": 3,
                              "error": "exit 3 (runtime/CUDA error)"}]}
    return doc


class ReportZooTest(unittest.TestCase):
    """scripts/report on a zoo: statistics, worst shapes, missing pct_roof, plots."""

    setUp, tearDown, report, ok, read = (ReportTest.setUp, ReportTest.tearDown, ReportTest.report, ReportTest.ok,
                                         ReportTest.read)
    write = ReportPlotsTest.write

    def zoo_md_path(self):
        return os.path.join(self.out, self.slug + "-zoo.md")

    def table_row(self, md, start):
        """The cells of the first table row that starts with `start` (a list of stripped strings)."""
        line = next(line for line in md.splitlines() if line.startswith(start))
        return [c.strip() for c in line.strip().strip("|").split("|")]

    def test_statistics(self):
        mod = sr.load_script(REPORT, "report_zoo_mod")
        doc = zoo_doc()
        zm = mod.ZooModel(doc, mod.zoo_split(doc)[0])
        st = zm.stats(10)
        self.assertEqual(st["shapes"], 20)
        self.assertAlmostEqual(st["geomean"], 5 * math.factorial(20) ** (1 / 20))  # 5·(20!)^(1/20)
        self.assertAlmostEqual(st["p5"], 9.75)  # position 0.05·19 = 0.95 between 5 and 10
        self.assertEqual(st["min"], 5.0)
        self.assertAlmostEqual(st["median_roof"], 10.5)  # i in {2,3,6,7,10,11,14,15,18,19}: (10 + 11) / 2
        self.assertEqual(st["roof_shapes"], 10)
        st1 = zm.stats(1)
        self.assertEqual((st1["shapes"], st1["capped"], st1["fails"], st1["min"]), (10, 10, 1, 1.0))
        self.assertAlmostEqual(st1["p5"], 1.45)
        # Worst first; ties by M, N, K.
        self.assertEqual([r["M"] for r in zm.worst(10)], [100, 103, 106, 109, 112, 115, 118, 101, 104, 107])
        self.assertEqual([r["pct_cublas"] for r in zm.worst(10)], [5.0 * (j + 1) for j in range(10)])
        self.assertEqual([r["M"] for r in zm.worst(8)], list(range(100, 110)))
        self.assertEqual(mod.percentile([3.0, 1.0, 2.0, 4.0], 50), 2.5)
        self.assertEqual(mod.percentile([7.0], 5), 7.0)
        self.assertIsNone(mod.percentile([], 5))

    def test_zoo_page(self):
        json_path = self.write("zoo.json", zoo_doc())
        self.ok(json_path=json_path)
        md = self.read(self.zoo_md_path())
        self.assertIn("# SGEMM shape zoo: Test GPU 9000 (synthetic)", md)
        self.assertIn("| Seed | 777 (drawn fresh by scripts/bench; `scripts/bench --zoo 10 --zoo-seed 777` draws "
                      "the same shapes) |", md)
        self.assertIn("| Shapes | 20: 10 random, 10 from families |", md)
        self.assertIn("| Families | gemv 10 |", md)
        self.assertIn("| Device | Test GPU 9000 (synthetic) |", md)
        g = 5 * math.factorial(20) ** (1 / 20)
        self.assertEqual(self.table_row(md, "| 10 | every_shape |"),
                         ["10", "every_shape", "20 of 20", sr.fmt_pct(g), "9.8%", "5.0%", "10.5%"])
        self.assertEqual(self.table_row(md, "| 08 | double_buffering |"),
                         ["08", "double_buffering", "20 of 20", "50.0%", "50.0%", "50.0%", "25.0%"])
        self.assertEqual(self.table_row(md, "| 00 | cuBLAS |"),
                         ["00", "cuBLAS", "20 of 20", "100.0%", "100.0%", "100.0%", "69.5%"])
        self.assertLess(md.index("| 10 | every_shape |"), md.index("| 00 | cuBLAS |"))
        # By class: kernel 10's even i (random) are 5·{1, 15, 9, 3, 17, 11, 5, 19, 13, 7}; its odd i the rest.
        even = [5.0 * ((7 * i) % 20 + 1) for i in range(0, 20, 2)]
        odd = [5.0 * ((7 * i) % 20 + 1) for i in range(1, 20, 2)]
        self.assertIn("| Step | Kernel | gemv (10) | random (10) |", md)  # classes in the sweep's order
        rows = [line for line in md.splitlines() if line.startswith("| 10 | every_shape |")]
        self.assertEqual(rows[1], f"| 10 | every_shape | {sr.fmt_pct(sr.geomean(odd))} | "
                                  f"{sr.fmt_pct(sr.geomean(even))} |")
        self.assertIn("| 00 | cuBLAS: median % of roof | 70.0% | 69.0% |", md)
        # Worst shapes of every non-cuBLAS kernel, worst first, with class, roof, bound, cuBLAS's roof, config.
        for n in ("01_naive", "08_double_buffering", "10_every_shape"):
            self.assertIn(f"### {n}\n", md)
        self.assertNotIn("### 00_", md)
        worst10 = md[md.index("### 10_every_shape"):]
        lines = [line for line in worst10.splitlines() if re.match(r"^\| \d+ \| \d+ \|", line)][:10]
        self.assertEqual([int(self.table_row(line, "|")[1]) for line in lines],
                         [100, 103, 106, 109, 112, 115, 118, 101, 104, 107])
        self.assertEqual(lines[0], "| 1 | 100 | 200 | 300 | random | 5.0% | — | flop | 60.0% | `config of 10 at 0` |")
        self.assertEqual(lines[1], "| 2 | 103 | 200 | 300 | gemv | 10.0% | 3.0% | dram | 63.0% | `config of 10 at 3` |")
        self.assertEqual(lines[7], "| 8 | 101 | 200 | 300 | gemv | 40.0% | — | dram | 61.0% | `config of 10 at 1` |")
        self.assertIn("| 5 | 104 | 200 | 300 | random | 5.0% **FAIL** | 25.0% | flop | 64.0% |",
                      md[md.index("### 01_naive"):])
        # Notes: the cap, the failed check, the failed batch.
        self.assertIn("- **01_naive** skipped by its cap (64³ work) at 10 of 20 shapes.", md)
        self.assertIn("- **01_naive** FAILED its correctness check at 1 shape(s): 104×200×300.", md)
        self.assertIn("- **11_tma_warp_specialized** not launched (N/A) at 3 shape(s).", md)
        self.assertNotIn("| 11 |", md)
        self.assertNotIn("### 11_", md)
        self.assertIn("- Runner invocation for 103×200×300, 102×200×300, 101×200×300, 100×200×300 failed: "
                      "exit 3", md)
        # A zoo alone: no <slug>.md, the README tables untouched.
        self.assertFalse(os.path.exists(self.md))
        self.assertEqual(self.read(self.readme), README)
        if HAVE_MPL:
            self.assertIn(f"![Shape zoo, % of cuBLAS]({self.slug}-zoo-cublas.png)", md)
            self.assertIn(f"![Shape zoo, % of roof]({self.slug}-zoo-roof.png)", md)
            paths = [os.path.join(self.out, self.slug + s) for s in ("-zoo-cublas.png", "-zoo-roof.png")]
            for p in paths:
                self.assertGreater(png_size(p)[0], 0)
            first = {p: sha(p) for p in paths + [self.zoo_md_path()]}
            self.ok(json_path=json_path)
            self.assertEqual(first, {p: sha(p) for p in paths + [self.zoo_md_path()]}, "deterministic")
        self.assertEqual([check_paths.find(line) for line in md.splitlines() if check_paths.find(line)], [])

    def test_zoo_tuned_column(self):
        # Runs that timed the tuned cuBLASLt baseline give each kernel's geomean % of it; kernel 8 at 40 %
        # of tuned everywhere, kernel 10 without the field (— in its cell); files without it: no column.
        doc = zoo_doc()
        for r in doc["results"]:
            if r["kernel"] == 8:
                r["pct_tuned"] = 40.0
        self.ok(json_path=self.write("zoo.json", doc), plots=False)
        md = self.read(self.zoo_md_path())
        self.assertIn("| Step | Kernel | Shapes | Geomean % of cuBLAS | 5th percentile | Minimum | "
                      "Geomean % of tuned cuBLASLt | Median % of roof |", md)
        self.assertEqual(self.table_row(md, "| 08 | double_buffering |"),
                         ["08", "double_buffering", "20 of 20", "50.0%", "50.0%", "50.0%", "40.0%", "25.0%"])
        self.assertEqual(self.table_row(md, "| 10 | every_shape |")[6], "—")
        self.ok(json_path=self.write("zoo.json", zoo_doc()), plots=False)
        self.assertNotIn("tuned cuBLASLt", self.read(self.zoo_md_path()))

    def test_zoo_kernel_selection(self):
        json_path = self.write("zoo.json", zoo_doc())
        self.ok("--zoo-kernel", "every_shape", json_path=json_path, plots=False)
        md = self.read(self.zoo_md_path())
        self.assertIn("### 10_every_shape", md)
        self.assertNotIn("### 08_", md)
        self.assertNotIn("### 01_", md)
        self.assertIn("| 08 | double_buffering | 20 of 20 |", md, "the summary keeps every kernel")
        self.ok("--zoo-kernel", "8,1", json_path=json_path, plots=False)
        md = self.read(self.zoo_md_path())
        self.assertLess(md.index("### 01_naive"), md.index("### 08_double_buffering"))  # by number, as the runner
        self.assertNotIn("### 10_", md)
        for bad, message in (("99", "unknown kernel '99'"), ("3", "has no result in the zoo"), ("0", "reference")):
            proc = self.report("--zoo-kernel", bad, json_path=json_path, plots=False)
            self.assertEqual(proc.returncode, 1, bad)
            self.assertIn(message, proc.stderr)
        proc = self.report("--zoo-kernel", "10", plots=False)  # a JSON without a zoo
        self.assertEqual(proc.returncode, 1)
        self.assertIn("has no zoo rows", proc.stderr)

    def test_zoo_follows_the_data(self):
        """The zoo page's tables default to every kernel the zoo has results of, whatever its number: kernel
        10 of zoo_doc() renumbered as a step 13 gets the same rows and worst shapes under its own label."""
        doc = zoo_doc()
        for k in doc["kernels"] + doc["results"]:
            if k.get("number", k.get("kernel")) == 10:
                k.update({"number": 13} if "number" in k else {"kernel": 13}, name="next_step")
        json_path = self.write("zoo13.json", doc)
        self.ok(json_path=json_path, plots=False)
        md = self.read(self.zoo_md_path())
        self.assertEqual(self.table_row(md, "| 13 | next_step |")[:3], ["13", "next_step", "20 of 20"])
        self.assertIn("### 13_next_step\n", md)
        self.assertNotIn("every_shape", md)
        self.ok("--zoo-kernel", "13_next_step", json_path=json_path, plots=False)
        md = self.read(self.zoo_md_path())
        self.assertIn("### 13_next_step\n", md)
        self.assertNotIn("### 08_", md)

    def test_missing_pct_roof(self):
        """Older files: no pct_roof, roof_ms or roof_bound at all; null ones are covered by zoo_doc()."""
        proc = self.ok(json_path=self.write("zoo-old.json", zoo_doc(roof=False)))
        md = self.read(self.zoo_md_path())
        self.assertNotIn("Median % of roof", md)
        self.assertIn("This JSON has no `pct_roof`", md)
        self.assertEqual(self.table_row(md, "| 10 | every_shape |")[3:6],
                         [sr.fmt_pct(5 * math.factorial(20) ** (1 / 20)), "9.8%", "5.0%"])
        self.assertIn("| 1 | 100 | 200 | 300 | random | 5.0% | — | — | — | `config of 10 at 0` |", md)
        self.assertNotIn("cuBLAS: median % of roof", md)
        self.assertFalse(os.path.exists(os.path.join(self.out, self.slug + "-zoo-roof.png")))
        self.assertNotIn("zoo-roof.png", md)
        if HAVE_MPL:
            self.assertIn("no pct_roof; skipping", proc.stderr)
            self.assertGreater(png_size(os.path.join(self.out, self.slug + "-zoo-cublas.png"))[0], 0)

    def test_mixed_file(self):
        """Zoo rows and a regular sweep in one file: both pages; the regular page keeps its own shapes."""
        doc = synthetic_doc()
        z = zoo_doc()
        doc["results"] += [r for r in z["results"]]
        doc["sweep"]["zoo"] = z["sweep"]["zoo"]
        doc["sweep"]["sizes"] += [[s["M"], s["N"], s["K"]] for s in z["sweep"]["zoo"]["shapes"]]
        doc["kernels"] = z["kernels"]
        self.ok(json_path=self.write("mixed.json", doc), plots=False)
        md = self.read(self.md)
        self.assertIn("| 4095×4097×4093 | 3000³ | 4096×64×4096 | Geomean % of cuBLAS |", md)
        self.assertNotIn("100×200×300", md)
        self.assertIn("| 03 | warptiling | 41.2 | 81.3% |", self.read(self.readme))
        self.assertIn("| 10 | every_shape | 20 of 20 |", self.read(self.zoo_md_path()))


NCU_CSV = """==PROF== Disconnected from process 1234
"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC",\
"dram__bytes.sum","gpu__time_duration.sum","launch__registers_per_thread",\
"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum","l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",\
"smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio",\
"smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",\
"smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio",\
"smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio",\
"smsp__average_warps_issue_stalled_selected_per_issue_active.ratio"
"","","","","","","","","","","","byte","nsecond","register/thread","","","ratio","ratio","ratio","ratio","ratio"
"0","1234","sgemm_runner","host","sgemm_07_warptiling","1","7","(256, 1, 1)","(32, 32, 1)","0","9.0",\
"201,326,592","2,750,000","128","1,000","4,000","0.50","1.25","0.75","0.10","1.00"
"""


class NcuSummaryTest(unittest.TestCase):
    def test_summary(self):
        rows = ncu_summary.parse_raw_csv(NCU_CSV)
        self.assertEqual(len(rows), 1)
        text = ncu_summary.summarise(rows[0], (4096, 4096, 4096))
        self.assertIn("sgemm_07_warptiling", text)
        self.assertIn("2.7500 ms", text)
        self.assertIn(f"{2 * 4096**3 / 2.75e-3 / 1e12:,.2f} TFLOP/s", text)
        self.assertIn("201.33 MB", text)
        self.assertIn("global ld sectors/req  4.00", text)
        self.assertIn("top 3 stall reasons    long_scoreboard 1.25, mio_throttle 0.75, barrier 0.50", text)

    def test_raw_metrics(self):
        # --raw PREFIXES: the named metrics, one "name value unit" line each, thousands separators dropped.
        path = os.path.join(tempfile.mkdtemp(), "ncu.csv")
        with open(path, "w") as f:
            f.write(NCU_CSV)
        out = subprocess.run([sys.executable, os.path.join(SCRIPTS, "ncu_summary.py"), path, "--raw",
                              "gpu__time,dram__bytes.sum"], capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stderr)
        lines = out.stdout.splitlines()
        self.assertTrue(lines and all(re.match(r"^(gpu__time|dram__bytes\.sum)\S* [\d.]+( \S+)?$", ln) for ln in lines),
                        lines)
        self.assertTrue(any(ln.startswith("dram__bytes.sum ") for ln in lines), lines)
        shutil.rmtree(os.path.dirname(path))

    def test_no_rows(self):
        with self.assertRaises(ncu_summary.SummaryError):
            ncu_summary.parse_raw_csv("==PROF== nothing profiled\n")

    def test_rejected_metrics(self):
        log = "==ERROR== Failed to find metric smsp__average_warps_issue_stalled_imc_miss_per_issue_active.ratio\n"
        self.assertEqual(ncu_summary.metrics_named_in(log),
                         ["smsp__average_warps_issue_stalled_imc_miss_per_issue_active.ratio"])
        self.assertEqual(ncu_summary.metrics_named_in("launch__shared_mem_per_block_static is fine\n"), [])


def sass_function(name, lines, template="ILi1EEEvv"):
    """One kernel as cuobjdump -sass prints it, from (address, text) pairs; name as Itanium mangles it."""
    body = "".join(f"        /*{addr:04x}*/                   {text} ;  /* 0x0 */\n" for addr, text in lines)
    return f"\t\tFunction : _ZN5sgemm12_GLOBAL__N_1{len(name)}{name}{template}\n{body}"


# Step 12's shape: an mbarrier wait whose retry the compiler moved behind the EXIT (a backward
# branch that is no loop), the k-loop with the HGMMAs, an epilogue with FFMA.
SASS_12 = [(0x00, "SYNCS.PHASECHK.TRANS64.TRYWAIT P0, [R1+URZ], R2"), (0x10, "@!P0 BRA 0xa0"),
           (0x20, "IADD3 R3, R3, 0x1, RZ"), (0x30, "WARPGROUP.ARRIVE"),
           (0x40, "HGMMA.64x256x8.F32.TF32 R24, gdesc[UR4], R24"), (0x50, "HGMMA.64x256x8.F32.TF32 R24, gdesc[UR8], R24"),
           (0x60, "ISETP.NE.AND P1, PT, R3, R4, PT"), (0x70, "@P1 BRA 0x20"),
           (0x80, "FFMA R24, R24, R5, R6"), (0x90, "EXIT"),
           (0xa0, "SYNCS.PHASECHK.TRANS64.TRYWAIT P0, [R1+URZ], R2"), (0xb0, "@!P0 BRA 0xa0"), (0xc0, "BRA 0x20"),
           (0xd0, "BRA 0xd0")]


class SassParsingTest(unittest.TestCase):
    def test_sass_stats_main_loop_of_a_tensor_core_kernel(self):
        ss = sr.load_script(os.path.join(SCRIPTS, "sass_stats"), "sass_stats_mod")
        text = "\tcode for sm_90a\n" + sass_function("sgemm_12_3xtf32_wgmma", SASS_12)
        (name, instrs), = ss.parse_sass(text).items()
        self.assertEqual(ss.demangle(name), "sgemm_12_3xtf32_wgmma<1>")
        # The retry loop (0xa0-0xb0) is a loop; the jump back from it (0xc0 -> 0x20) is not.
        self.assertEqual(ss.loops(instrs), [(0x20, 0x70), (0xa0, 0xb0)])
        e = ss.kernel_stats(name, instrs, {})
        self.assertEqual((e["main_loop"]["start"], e["main_loop"]["end"]), ("0x0020", "0x0070"))
        self.assertEqual((e["main_loop"]["HGMMA"], e["main_loop"]["FFMA"], e["whole"]["BAR"]), (2, 0, 2))
        self.assertEqual(e["fast_trip"]["total"], 6)
        table = ss.mix_table([e], "main_loop")
        self.assertIn("| FFMA | HGMMA | LDS.128 |", table)
        self.assertNotIn("TMA", table)  # an optional column only where some kernel has TMA copies

    def test_sass_stats_demangles_enumeration_arguments(self):
        """An enumeration's template argument reads as c++filt writes it, whether the mangled name spells
        its type (N...E) or refers to it by a substitution (S1_: the anonymous namespace is S_, the
        function S0_, the enumeration type S1_): step 12's instantiations differ there and after it."""
        ss = sr.load_script(os.path.join(SCRIPTS, "sass_stats"), "sass_stats_enum_mod")
        ns = "_ZN51_GLOBAL__N__07881cff_18_12_3xtf32_wgmma_cu_b11778e1"
        self.assertEqual(
            ss.demangle(ns + "21sgemm_12_3xtf32_wgmmaILi128ELi128ELi16ELi4ELi8ELi3ELi2ELNS_4Tf32E1ELb0ELb1ELb0ELb1EEEviiiffPf"),
            "sgemm_12_3xtf32_wgmma<128, 128, 16, 4, 8, 3, 2, (Tf32)1, false, true, false, true>")
        self.assertEqual(ss.demangle(ns + "27sgemm_12_3xtf32_wgmma_splitILb1ELb0ELNS_4Tf32E1ELS1_0ELb1EEEvNS_8SplitJobE"),
                         "sgemm_12_3xtf32_wgmma_split<true, false, (Tf32)1, (Tf32)0, true>")
        # A type argument reads as its last name: the timeline build's step 08 differs from the plain one there.
        self.assertEqual(ss.demangle("_ZN12_GLOBAL__N_125sgemm_08_double_bufferingILi128ELb1EN5sgemm5trace11RecordTraceEEEvi"),
                         "sgemm_08_double_buffering<128, true, RecordTrace>")
        # A substitution that names no component seen so far, or an argument of another kind: '?', then '…'.
        self.assertEqual(ss.demangle("_Z3fooILS5_1EEvv"), "foo<?, …>")
        self.assertEqual(ss.demangle("_Z3fooILi1ELPKc0EEvv"), "foo<1, ?, …>")

    def test_sass_stats_steps_from_the_registry(self):
        """A function's step is its registered kernel's (the longest function prefix), not a number read
        from its name: a step 13 is placed after step 12, a function of no kernel last."""
        ss = sr.load_script(os.path.join(SCRIPTS, "sass_stats"), "sass_stats_reg_mod")
        kernels = [{"number": 0, "name": "cublas", "step": 0, "functions": None},
                   {"number": 12, "name": "old", "step": 12, "functions": "sgemm_12_"},
                   {"number": 13, "name": "next_step", "step": 13, "functions": "sgemm_13_"},
                   {"number": 1300, "name": "next_step_x", "step": 13, "functions": "sgemm_13_"}]
        self.assertEqual(ss.step_of("sgemm_13_next_step<1>", kernels), 13)
        self.assertIsNone(ss.step_of("sgemm_99_stray", kernels))
        text = "\tcode for sm_90a\n" + "".join(sass_function(n, SASS_12) for n in
                                              ("sgemm_99_stray", "sgemm_13_next_step", "sgemm_12_old"))
        entries = [ss.kernel_stats(m, i, {}, kernels) for m, i in ss.parse_sass(text).items()]
        entries.sort(key=ss.sort_key)
        self.assertEqual([(e["kernel"], e["step"]) for e in entries],
                         [("sgemm_12_old<1>", 12), ("sgemm_13_next_step<1>", 13), ("sgemm_99_stray<1>", None)])
        # A runner that lists no function prefixes cannot say which step a function is: an error.
        with tempfile.TemporaryDirectory() as tmp:
            for listed, ok in ((kernels, True), ([{"number": 1, "name": "naive"}], False)):
                text = json.dumps({"tuning_from": 100, "kernels": listed})
                runner = python_script(os.path.join(tmp, "sgemm_runner"), f"print({text!r})\n")
                if ok:
                    self.assertEqual([k["step"] for k in ss.registry(runner)], [0, 12, 13, 13])
                else:
                    with self.assertRaisesRegex(ss.StatsError, "lists no 'functions' and 'step'"):
                        ss.registry(runner)

    def test_check_sass_names_and_archs(self):
        import check_sass
        self.assertTrue(check_sass.named("sgemm_12_3xtf32_wgmma", "_ZN5sgemm21sgemm_12_3xtf32_wgmmaILi1EEEvv"))
        self.assertFalse(check_sass.named("sgemm_12_3xtf32_wgmma", "_ZN5sgemm27sgemm_12_3xtf32_wgmma_splitILb1EEEvv"))
        self.assertTrue(check_sass.named("sgemm_06_", "_ZN5sgemm19sgemm_06_vectorizedILi1EEEvv"))
        self.assertEqual(check_sass.shown(r"\bHGMMA\.\S*\.TF32\b"), "HGMMA.*.TF32")
        self.assertTrue(re.search(check_sass.FEATURES["HGMMA.TF32"][0], "HGMMA.64x256x8.F32.TF32 R24, gdesc[UR4], R24"))
        self.assertFalse(re.search(check_sass.FEATURES["HGMMA.TF32"][0], "HGMMA.64x256x16.F32.BF16 R24, gdesc[UR4], R24"))
        text = "\tcode for sm_80\n" + sass_function("sgemm_11_x", [(0, "EXIT")]) + \
               "\tcode for sm_90\n" + sass_function("sgemm_11_x", [(0, "UTMALDG.2D [UR4], [UR6]")])
        with mock.patch.object(check_sass, "run_cuobjdump", lambda *args: text):
            functions = check_sass.kernels_sass("bin", "cuobjdump", None)
        self.assertEqual(sorted(arch for _, arch in functions), ["sm_80", "sm_90"])


class KernelKeysTest(unittest.TestCase):
    """sgemm_results' one kernel-key resolver, label and registry parsing, for scripts without a runner."""

    KERNELS = [{"number": 0, "name": "cublas"}, {"number": 7, "name": "warptiling"},
               {"number": 13, "name": "next_step", "label": "13_next_step"}, {"number": 1300, "name": "next_step_x"}]

    def numbers(self, keys):
        return [k["number"] for k in sr.resolve_kernels(keys, self.KERNELS)]

    def test_grammar(self):
        self.assertEqual(self.numbers("7"), [7])
        self.assertEqual(self.numbers("07"), [7])
        self.assertEqual(self.numbers("warptiling"), [7])
        self.assertEqual(self.numbers("07_warptiling"), [7])
        self.assertEqual(self.numbers(["13,7", "warptiling"]), [7, 13])  # by number, each once (as the runner)
        self.assertEqual(self.numbers("all"), [0, 7, 13, 1300])
        self.assertEqual([k["number"] for k in sr.select_kernels("all", self.KERNELS)], [7, 13, 1300])
        self.assertEqual(sr.select_kernels("0", self.KERNELS), [])  # a run of cuBLAS alone times no kernel
        # The tuned baseline is a baseline too: by the registry's flag, or by number in a file without it.
        with_tuned = self.KERNELS + [{"number": sr.TUNED_BASELINE, "name": "cublaslt"}]
        self.assertEqual([k["number"] for k in sr.select_kernels("all", with_tuned)], [7, 13, 1300])
        self.assertTrue(sr.is_baseline({"number": 13, "name": "x", "baseline": True}))
        self.assertFalse(sr.is_baseline({"number": sr.TUNED_BASELINE, "name": "x", "baseline": False}))
        self.assertEqual(self.numbers("0"), [0])
        self.assertEqual(self.numbers("1300_next_step_x"), [1300])
        self.assertEqual(self.numbers("0007"), [7])
        for bad in ("99", "next", "7,nosuch", "00007"):  # the runner reads at most 4 digits as a number
            with self.assertRaises(sr.ResultsError) as e:
                sr.resolve_kernels(bad, self.KERNELS)
            self.assertIn("unknown kernel", str(e.exception))

    def test_label_and_list(self):
        self.assertEqual(sr.label({"number": 7, "name": "warptiling"}), "07_warptiling")
        self.assertEqual(sr.label({"number": 1300, "name": "x"}), "1300_x")
        kernels, tuning_from = sr.parse_kernel_list(json.dumps({"tuning_from": 100, "kernels": [
            {"number": 13, "name": "next_step", "step": 13, "functions": "sgemm_13_", "tunable": True},
            {"number": 0, "name": "cublas", "step": 0, "functions": None}]}))
        self.assertEqual([k["number"] for k in kernels], [0, 13])
        self.assertEqual((kernels[1]["step"], kernels[1]["functions"], kernels[1]["tunable"]), (13, "sgemm_13_", True))
        self.assertEqual((kernels[1]["precision"], kernels[1]["tuning_variant"]), ("fp32", False))  # defaults
        with self.assertRaises(sr.ResultsError):
            sr.parse_kernel_list('{"kernels": [{"name": "x"}], "tuning_from": 100}')

    def test_sub_steps_in_ladder_order(self):
        """A sub-step (9a: number 991, step 9, part "a") sits right before its step, keys "9a" / "09a", label
        09a_name; tuning variants after everything; files from before sub-steps sort by number as before."""
        listed = [{"number": n, "name": name, "step": step, "part": part, "tuning_variant": tv}
                  for n, name, step, part, tv in (
                      (907, "multistage_x", 9, None, True), (10, "every", 10, None, False),
                      (992, "larger_tile", 9, "b", False), (9, "multistage", 9, None, False),
                      (991, "pipeline", 9, "a", False), (8, "double", 8, None, False),
                      (0, "cublas", 0, None, False), (99, "cublaslt", 99, None, False))]
        kernels, _ = sr.parse_kernel_list(json.dumps({"tuning_from": 100, "kernels": listed}))
        self.assertEqual([k["number"] for k in kernels], [0, 8, 991, 992, 9, 10, 99, 907])
        self.assertEqual([sr.label(k) for k in kernels[1:5]],
                         ["08_double", "09a_pipeline", "09b_larger_tile", "09_multistage"])

        def numbers(keys):
            return [k["number"] for k in sr.resolve_kernels(keys, kernels)]
        self.assertEqual(numbers("9a"), [991])
        self.assertEqual(numbers("09b,8,0009a,9"), [8, 991, 992, 9])
        self.assertEqual(numbers("991"), [991])
        self.assertEqual(numbers("09a_pipeline"), [991])
        for bad in ("9A", "9c", "00009a", "a"):
            with self.assertRaises(sr.ResultsError):
                numbers(bad)
        # A runner JSON names its kernels in its rows only: a row's step and part make the label and the place.
        row = {"kernel": 991, "name": "pipeline", "step": 9, "part": "a"}
        doc = {"results": [dict(row, kernel=9, name="multistage", part=None), row,
                           dict(row, kernel=8, name="d", step=8, part=None)]}
        self.assertEqual([sr.label(k) for k in sr.kernels_of(doc)], ["08_d", "09a_pipeline", "09_multistage"])
        old = {"results": [{"kernel": 902, "name": "v"}, {"kernel": 9, "name": "m"}, {"kernel": 8, "name": "d"}]}
        self.assertEqual([k["number"] for k in sr.kernels_of(old)], [8, 9, 902])

    def test_tuned_kernel(self):
        doc = tune_doc()
        self.assertEqual(sr.tuned_kernel([doc])["number"], 13)
        doc["results"].append(dict(doc["results"][-1], kernel=9, name="older"))
        with self.assertRaises(sr.ResultsError) as e:
            sr.tuned_kernel([doc])
        self.assertIn("--tune candidates of several kernels (09_older, 13_next_step)", str(e.exception))
        self.assertEqual(sr.tuned_kernel([doc], "9")["name"], "older")
        with self.assertRaises(sr.ResultsError):
            sr.tuned_kernel([doc], "11")  # in the file, but no candidates


def tune_doc():
    """A made-up `sgemm_runner --tune` run: step 13 tuned (candidates a, b, c), steps 09 and 11 timed
    beside it (no 12), on the first two irregular shapes of the suite and one other."""
    doc = synthetic_doc()
    del doc["kernels"], doc["sweep"], doc["nvidia_smi"]
    doc["build"] = {"git_commit": "abc1234", "git_dirty": False}
    rows = []
    for size in (sr.DEFAULT_IRREGULAR[0], sr.DEFAULT_IRREGULAR[1], (64, 64, 64)):
        rows.append(result(0, "cublas", size, 40.0, 100.0))
        rows.append(result(9, "older", size, 20.0, 50.0))
        rows.append(result(11, "previous", size, 30.0, 75.0))
        rows.append(dict(result(13, "next_step", size, 36.0, 90.0), config="b"))
        for config, tf, picked in (("a", 38.0, False), ("b", 36.0, True), ("c", 18.0, False)):
            rows.append(dict(result(13, "next_step", size, tf, tf * 2.5), config=config, tune_candidate=True,
                             picked=picked))
    doc["results"] = rows
    return doc


class TuneTableTest(unittest.TestCase):
    """scripts/tune_table: the tuned kernel and the step before it come from the file."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="test-tune-")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def run_tool(self, doc, *extra):
        path = os.path.join(self.tmp, "tune.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        return subprocess.run([sys.executable, os.path.join(SCRIPTS, "tune_table"), path] + list(extra),
                              capture_output=True, text=True)

    def test_page(self):
        proc = self.run_tool(tune_doc())
        self.assertEqual(proc.returncode, 0, proc.stderr)
        md = proc.stdout
        self.assertIn("# Step 13 `--tune` run: Test GPU 9000 (synthetic)", md)
        # Compared with the highest-numbered step below 13 that has rows: 11 (there is no 12).
        self.assertIn("| M×N×K | cuBLAS ms | step 11 % of cuBLAS | step 13 pick | ms | % of cuBLAS | fastest "
                      "candidate |", md)
        self.assertIn("| 4095×4097×4093 | 3.4335 | 75.00% | `b` | 3.8150 | 90.00% | `a` | 3.6142 | 95.00% | 5.56% "
                      "| 3 |", md)
        self.assertIn("- **Irregular suite (2 of its 7 shapes in this file): step 13 geomean 90.00% of cuBLAS, "
                      "minimum 90.00% at 4095×4097×4093.**", md)
        self.assertIn("- Step 11 on the same shapes in the same run: geomean 75.00% of cuBLAS.", md)
        self.assertNotIn("step 10", md.lower())

    def test_kernel_choice(self):
        doc = tune_doc()
        doc["results"] += [dict(r, kernel=9, name="older") for r in doc["results"] if r.get("tune_candidate")]
        proc = self.run_tool(doc)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("pick one with --kernel", proc.stderr)
        proc = self.run_tool(doc, "--kernel", "older")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("# Step 09 `--tune` run", proc.stdout)
        self.assertIn("| M×N×K | cuBLAS ms | step 09 pick |", proc.stdout)  # no step below 09 with rows
        self.assertNotIn("Step 09 on the same shapes", proc.stdout)
        proc = self.run_tool(doc, "--kernel", "99")
        self.assertEqual(proc.returncode, 2)
        self.assertIn("unknown kernel '99'", proc.stderr)
        doc["results"] = [r for r in doc["results"] if not r.get("tune_candidate")]
        proc = self.run_tool(doc)
        self.assertEqual(proc.returncode, 1)
        self.assertIn("no rows with \"tune_candidate\": true", proc.stderr)


FAKE_MODEL = r'''
import sys
# The planner's model, made up: plan a of every shape in class ca at 1 ms, plan b in class cb at 2 ms,
# each times its class's scale from --calibration; the model picks the faster.
args = sys.argv[1:]
scales = {}
with open(args[args.index("--calibration") + 1]) as f:
    for line in f:
        if line.startswith("scale."):
            cls, value = line[len("scale."):].split()
            scales[cls] = float(value)
for line in sys.stdin:
    m, n, k, bz, ba = line.split()
    a, b = 1e-3 * scales.get("ca", 1.0), 2e-3 * scales.get("cb", 1.0)
    for desc, cls, sec in (("a", "ca", a), ("b", "cb", b)):
        print(f"{m} {n} {k} {bz} {ba} {ba}|{desc}|{cls}|{sec}|{int(sec == min(a, b))}")
'''


TILE_MODEL = r'''
import sys
# A made-up model with a tile class: plan a (class tile0) takes 1 ms + M rounds of latency_us.tile0
# (2 us unless calibrated), plan b (class cb) 2 ms; each times its class's scale.
args = sys.argv[1:]
cal = {}
with open(args[args.index("--calibration") + 1]) as f:
    for line in f:
        if line.strip() and not line.startswith("#"):
            name, value = line.split()
            cal[name] = float(value)
for line in sys.stdin:
    m, n, k, bz, ba = line.split()
    a = (1e-3 + 1e-6 * cal.get("latency_us.tile0", 2.0) * int(m)) * cal.get("scale.tile0", 1.0)
    b = 2e-3 * cal.get("scale.cb", 1.0)
    for desc, cls, sec in (("a", "tile0", a), ("b", "cb", b)):
        print(f"{m} {n} {k} {bz} {ba} {ba}|{desc}|{cls}|{sec}|{int(sec == min(a, b))}")
'''


class CalibratePlannerTest(unittest.TestCase):
    """scripts/calibrate_planner: the kernel from the runs, its paths from its label and step."""

    TOOL = os.path.join(SCRIPTS, "calibrate_planner")

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="test-calibrate-")
        self.model = python_script(os.path.join(self.tmp, "model"), FAKE_MODEL)
        self.json = os.path.join(self.tmp, "tune.json")
        doc = tune_doc()
        # Measured: a at 3 ms (the model's 1 ms x 3), b at 3 ms (2 ms x 1.5) on every shape.
        for r in doc["results"]:
            if r.get("tune_candidate"):
                r["median_ms"] = 3.0 if r["config"] in ("a", "b") else 9.0
        doc["results"] = [r for r in doc["results"] if r.get("config") != "c"]
        for key, value in (("mem_bus_bits", 4096), ("mem_clock_max_mhz", 3000)):
            doc["device"][key] = value
        with open(self.json, "w") as f:
            json.dump(doc, f)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def run_tool(self, *args):
        return subprocess.run([sys.executable, self.TOOL] + list(args), capture_output=True, text=True)

    def test_calibration(self):
        header = os.path.join(self.tmp, "calibration.h")
        with open(header, "w") as f:
            f.write('inline constexpr DeviceCalibration kCalibrations[] = {\n'
                    '    {"Other GPU",\n        "scale.ca 1.000\\n"},\n'
                    '};\n// END CALIBRATIONS\n')
        out = os.path.join(self.tmp, "out.cal")
        proc = self.run_tool("--json", self.json, "--model", self.model, "--out", out, "--header", header)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(out) as f:
            text = f.read()
        self.assertEqual(text, "# step 13 calibration for Test GPU 9000 (synthetic), from sgemm_runner --kernel 13 "
                               "--tune:\n#   tune.json (2026-01-02T03:04:05Z)\nscale.ca 3.000\nscale.cb 1.500\n")
        self.assertIn("uncalibrated: 3 shapes, regret <= 10 % on 100 %", proc.stdout)
        with open(header) as f:
            src = f.read()
        self.assertIn('    {"Other GPU",\n', src)  # the other device's entry kept
        self.assertIn('    {"Test GPU 9000 (synthetic)",\n        "# step 13 calibration', src)

    def test_round_latency_of_a_tile_class(self):
        # Measured: a at 2 x (1 ms + M x 3 us) on every shape: under a round latency of 3 us the ratios
        # to the model are all 2 (no scatter), under any other they differ from shape to shape.
        model = python_script(os.path.join(self.tmp, "tile_model"), TILE_MODEL)
        doc = tune_doc()
        for r in doc["results"]:
            if r.get("tune_candidate"):
                r["median_ms"] = 2.0 * (1.0 + 0.003 * r["M"]) if r["config"] == "a" else 3.0
        doc["results"] = [r for r in doc["results"] if r.get("config") != "c"]
        path, out = os.path.join(self.tmp, "tile.json"), os.path.join(self.tmp, "tile.cal")
        with open(path, "w") as f:
            json.dump(doc, f)
        proc = self.run_tool("--json", path, "--model", model, "--out", out)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(out) as f:
            text = f.read()
        self.assertIn("latency_us.tile0 3\nscale.cb 1.500\nscale.tile0 2.000\n", text)
        self.assertNotIn("latency_us.cb", text)  # only tile classes have a round latency
        # Measured on fewer than 3 shapes, a class keeps the planner's estimate (no latency line).
        first = doc["results"][0]
        doc["results"] = [r for r in doc["results"] if (r["M"], r["N"], r["K"]) != (first["M"], first["N"], first["K"])]
        with open(path, "w") as f:
            json.dump(doc, f)
        proc = self.run_tool("--json", path, "--model", model, "--out", out)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(out) as f:
            self.assertNotIn("latency_us.tile0", f.read())

    def test_defaults_from_the_kernel(self):
        mod = sr.load_script(self.TOOL, "calibrate_mod")
        k = {"number": 13, "name": "next_step", "step": 13}
        self.assertEqual(mod.default_header(k), os.path.join(REPO, "kernels", "13_next_step", "calibration.h"))
        self.assertEqual(mod.default_model(k), os.path.join(REPO, "build", "runner", "step13_model"))
        proc = self.run_tool("--json", self.json)  # the default model of step 13 does not exist
        self.assertEqual(proc.returncode, 2)
        self.assertIn("build/runner/step13_model is not an executable: build the model of 13_next_step", proc.stderr)

    def test_bad_input(self):
        doc = tune_doc()
        doc["results"] += [dict(r, kernel=9, name="older") for r in doc["results"] if r.get("tune_candidate")]
        two = os.path.join(self.tmp, "two.json")
        with open(two, "w") as f:
            json.dump(doc, f)
        for args, message in ((["--json", two], "pick one with --kernel"),
                              (["--json", self.json, "--kernel", "99"], "unknown kernel '99'"),
                              (["--json", os.path.join(self.tmp, "missing.json")], "cannot read")):
            proc = self.run_tool(*args, "--model", self.model)
            self.assertEqual(proc.returncode, 2, args)
            self.assertIn(message, proc.stderr)


class AccuracyTableTest(unittest.TestCase):
    """scripts/accuracy_table: one table per size, a row per distribution, the error ratio to cuBLAS."""

    def doc(self):
        d = synthetic_doc()
        d["settings"]["init"] = ["uniform", "integers", "special"]
        res = []
        for init, errs in (("uniform", (2e-7, 1e-7)), ("integers", (0.0, 0.0)), ("special", (3e-7, 1e-7))):
            cub = result(0, "cublas", SQ1, 40.0, 100.0)
            mine = result(3, "warptiling", SQ1, 80.0, 200.0, status="PASS" if init != "special" else "FAIL")
            cub["rel_err"], mine["rel_err"] = errs[1], errs[0]
            cub["init"] = mine["init"] = init
            res += [cub, mine]
        d["results"] = res
        return d

    def test_rows_ratios_and_errors(self):
        tool = sr.load_script(os.path.join(SCRIPTS, "accuracy_table"), "accuracy_table_mod")
        text = tool.table(self.doc(), ["3"], "raw/x.json")
        self.assertIn("### 1024³", text)
        self.assertIn("[`raw/x.json`](raw/x.json)", text)
        rows = {line.split("|")[1].strip(): [c.strip() for c in line.split("|")[2:-1]]
                for line in text.splitlines() if line.startswith("| ") and not line.startswith("| `--init`")}
        self.assertEqual(rows["uniform"], ["1e-07", "2e-07", "2.00", "200.0", "PASS"])
        self.assertEqual(rows["integers"], ["0", "0", "exact", "200.0", "PASS"])
        self.assertEqual(rows["special"][2:], ["3.00", "200.0", "FAIL"])
        with self.assertRaises(sr.ResultsError):
            tool.table(self.doc(), ["99"], "raw/x.json")  # not in the file

    def test_command_line(self):
        with tempfile.TemporaryDirectory() as tmp:
            src, out = os.path.join(tmp, "in.json"), os.path.join(tmp, "out.md")
            with open(src, "w", encoding="utf-8") as f:
                json.dump(self.doc(), f)
            run = subprocess.run([sys.executable, os.path.join(SCRIPTS, "accuracy_table"), src, "--out", out],
                                 capture_output=True, text=True)
            self.assertEqual(run.returncode, 0, run.stderr)
            with open(out, encoding="utf-8") as f:
                self.assertIn("03_warptiling error", f.read())
            bad = subprocess.run([sys.executable, os.path.join(SCRIPTS, "accuracy_table"), out],
                                 capture_output=True, text=True)
            self.assertEqual(bad.returncode, 2)



def runner_doc(command, rows, **settings):
    """A made-up `sgemm_runner --json` file (schema 2, no registry) of the device of synthetic_doc()."""
    doc = synthetic_doc()
    for key in ("kernels", "sweep", "nvidia_smi"):
        del doc[key]
    doc.update(schema="sgemm-steps/2", command=command, results=rows, energy_meter=None, tuned_baseline=99,
               build={"git_commit": "abc1234", "git_dirty": True, "build_type": "Release"})
    doc["settings"].update(dict(layouts=["NN"], init=["uniform"], energy_window_s=None), **settings)
    return doc


def timed(kernel, name, size, ms, pct, tuned, err, cublas_err=1e-6, status="PASS", **extra):
    """A result row with the fields scripts/energy_table reads, the energy ones null unless given."""
    row = dict(result(kernel, name, size, 1.0, pct, status), median_ms=ms, pct_tuned=tuned, rel_err=err,
               cublas_rel_err=None if kernel == 0 else cublas_err, layout="NN", init="uniform")
    row.update({key: None for key in ("energy_j", "gflop_per_j", "power_w", "power_max_w", "sm_clock_mhz",
                                      "energy_window_s", "energy_gemms")})
    row.update(extra)
    return row


class EnergyTableTest(unittest.TestCase):
    """scripts/energy_table: speed, energy per GEMM and accuracy of one device, numbers as the JSONs hold them."""

    TOOL = os.path.join(SCRIPTS, "energy_table")

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="test-energy-")
        self.out = os.path.join(self.tmp, "page.md")
        self.sizes = self.write("sizes.json", runner_doc("/home/u/sgemm/build/runner/sgemm_runner --kernel 12,14", [
            timed(0, "cublas", SQ1, 0.34249600768, 100.0, 100.028, 8.096877e-07),
            timed(12, "3xtf32_wgmma", SQ1, 0.218000002, 157.10825, 157.15229, 2.7596e-07, 8.096877e-07),
            timed(14, "ozaki_int8", SQ1, 0.30247999727, 113.22930, 113.26104, 2.53398853e-08, 8.096877e-07),
            timed(99, "cublaslt", SQ1, 0.34259200096, 99.97198, 100.0, 8.096877e-07, 8.096877e-07),
            timed(0, "cublas", SQ4, 2.66049599, 100.0, None, 1.1455621e-06),
            timed(14, "ozaki_int8", SQ4, 1.33923202, 198.65833, None, None, status="FAIL")]))
        energy = [timed(0, "cublas", SQ4, 166.74182128, 100.0, 99.29, 2.29260358e-06, energy_j=115.75016483,
                        gflop_per_j=75.99205612, power_w=699.14318687, power_max_w=702.789, sm_clock_mhz=1936.9429,
                        energy_window_s=15.065962449, energy_gemms=91),
                  timed(10, "every_shape", SQ4, 182.963973999, 91.133690, 90.486, 2.2915556e-06,
                        energy_j=None, gflop_per_j=None, power_w=None, power_max_w=686.576, sm_clock_mhz=1980.0,
                        energy_window_s=15.005331652, energy_gemms=82),
                  timed(14, "ozaki_int8", SQ4, 59.9231986999, 278.259213, 276.28, 2.5293107e-08,
                        energy_j=42.302669322, gflop_per_j=207.93234003, power_w=697.396880, power_max_w=707.928,
                        sm_clock_mhz=1380.34953395, energy_window_s=15.225146964, energy_gemms=251),
                  timed(99, "cublaslt", SQ4, 165.557403564, 100.715412, 100.0, 2.29260358e-06)]
        self.energy = self.write("energy.json", dict(runner_doc("sgemm_runner --sustained 15", energy,
                                                                energy_window_s=15.0),
                                                     energy_meter="NVML total-energy counter"))
        acc = []
        for layout in ("NN", "NT"):
            for init, cub, mine, other in (("uniform", 2.0e-7, 5.0e-8, 4.0e-7), ("integers", 0.0, 0.0, 0.0),
                                           ("wide", 1.0e-7, 2.5e-7, 1.0e-7)):
                common = dict(layout=layout, init=init, cublas_rel_err=cub)
                acc += [dict(timed(0, "cublas", SQ1, 1.0, 100.0, 100.0, cub), layout=layout, init=init),
                        dict(timed(14, "ozaki_int8", SQ1, 0.5, 200.0, 200.0, mine), **common)]
                acc.append(dict(timed(12, "3xtf32_wgmma", SQ1, 0.6, 170.0, 170.0, other), **common) if layout == "NN"
                           else dict(timed(12, "3xtf32_wgmma", SQ1, None, None, None, None, status="N/A"),
                                     not_run_reason="NN only", **common))
        self.accuracy = self.write("accuracy.json", runner_doc("sgemm_runner --init all --layout NN,NT", acc,
                                                               init=["uniform", "integers", "wide"],
                                                               layouts=["NN", "NT"]))

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def write(self, name, doc):
        path = os.path.join(self.tmp, name)
        with open(path, "w", encoding="utf-8") as f:
            json.dump(doc, f) if isinstance(doc, dict) else f.write(doc)
        return path

    def run_tool(self, *args):
        return subprocess.run([sys.executable, self.TOOL] + list(args), capture_output=True, text=True)

    def page(self):
        proc = self.run_tool("--sizes", self.sizes, "--energy", self.energy, "--accuracy", self.accuracy,
                             "--out", self.out)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(self.out, encoding="utf-8") as f:
            return f.read()

    def test_header_and_speed(self):
        md = self.page()
        self.assertTrue(md.startswith("# Test GPU 9000 (synthetic): speed, energy per GEMM and accuracy of "
                                      "10_every_shape, 12_3xtf32_wgmma, 14_ozaki_int8 against cuBLAS\n"))
        self.assertIn("- **Driver** 999.1 (CUDA driver API 13.0), **CUDA runtime** 13.0, **cuBLAS** 13.0.2", md)
        self.assertIn("SM 1900 MHz at the start (max 2000 MHz)", md)
        self.assertIn("git commit `abc1234` with uncommitted changes (Release)", md)
        self.assertIn("- **Files read**: `sizes.json` (speed), `energy.json` (energy), `accuracy.json` (accuracy)",
                      md)
        # The command as recorded, less the machine's path; nothing absolute anywhere on the page.
        self.assertIn("  - `sizes.json`: `build/runner/sgemm_runner --kernel 12,14`", md)
        self.assertEqual([(i, p) for i, line in enumerate(md.splitlines()) for p in check_paths.find(line)], [])
        # Kernels by number (cuBLAS only in the last column), 5 significant digits for ms, 3 for errors.
        self.assertIn("| M×N×K | 12_3xtf32_wgmma ms | % cuBLAS | % tuned | error | 14_ozaki_int8 ms | % cuBLAS | "
                      "% tuned | error | 99_cublaslt ms | % cuBLAS | % tuned | error | cuBLAS ms, error |", md)
        self.assertIn("| 1024³ | 0.21800 | 157.1% | 157.2% | 2.76e-07 | 0.30248 | 113.2% | 113.3% | 2.53e-08 | "
                      "0.34259 | 100.0% | 100.0% | 8.1e-07 | 0.34250, 8.1e-07 |", md)
        # Nulls are n/a, rows the file lacks –, a failed row says so.
        self.assertIn("| 4096³ | – | – | – | – | 1.3392 (FAIL) | 198.7% | n/a | n/a | – | – | – | – | "
                      "2.6605, 1.15e-06 |", md)

    def test_energy(self):
        md = self.page()
        self.assertIn("Each kernel launched back to back for a window of at least 15 s (`settings.energy_window_s`), "
                      "measured by the NVML total-energy counter (`energy_meter`).", md)
        rows = {line.split("|")[1].strip(): [c.strip() for c in line.split("|")[2:-1]]
                for line in md.split("## Accuracy")[0].split("## Energy per GEMM")[1].splitlines()
                if line.startswith("| ") and not line.startswith("| kernel")}
        self.assertEqual(list(rows), ["00_cublas", "10_every_shape", "14_ozaki_int8", "99_cublaslt"])
        self.assertEqual(rows["00_cublas"], ["166.74", "100.0%", "116", "76.0", "699", "703", "1937", "15.07", "91",
                                             "2.29e-06"])
        self.assertEqual(rows["10_every_shape"], ["182.96", "91.1%", "n/a", "n/a", "n/a", "687", "1980", "15.01",
                                                  "82", "2.29e-06"])
        self.assertEqual(rows["14_ozaki_int8"], ["59.923", "278.3%", "42.3", "208", "697", "708", "1380", "15.23",
                                                 "251", "2.53e-08"])
        self.assertEqual(rows["99_cublaslt"][2:9], ["n/a"] * 7)

    def test_accuracy(self):
        md = self.page()
        part = md.split("## Accuracy")[1]
        self.assertIn("#### 1024³, NN", part)
        self.assertIn("| `--init` | cuBLAS error | 12_3xtf32_wgmma error | ratio | check | 14_ozaki_int8 error | "
                      "ratio | check |", part)
        nn, nt = part.split("#### 1024³, NT")
        self.assertIn("| uniform | 2e-07 | 4e-07 | 2.00 | PASS | 5e-08 | 0.250 | PASS |", nn)
        self.assertIn("| integers | 0 | 0 | – | PASS | 0 | – | PASS |", nn)  # cuBLAS's error 0: no ratio
        self.assertIn("| wide | 1e-07 | n/a | – | N/A | 2.5e-07 | 2.50 | PASS |", nt)
        self.assertIn("- **12_3xtf32_wgmma**: error ≤ cuBLAS's in 2 of 3 rows with both errors (3 rows without "
                      "both); largest ratio 2.00 at 1024³ NN `uniform`; check: 3 PASS, 3 N/A.", part)
        self.assertIn("- **14_ozaki_int8**: error ≤ cuBLAS's in 4 of 6 rows with both errors; largest ratio 2.50 at "
                      "1024³ NN `wide`; check: 6 PASS.", part)

    def test_deterministic_and_default_out(self):
        first = self.page()
        self.assertEqual(self.page(), first)
        tool = sr.load_script(self.TOOL, "energy_table_mod")
        os.makedirs(os.path.join(self.tmp, "docs", "results"))
        with mock.patch.object(sr, "REPO_ROOT", self.tmp), mock.patch("sys.stdout", new=io.StringIO()):
            self.assertEqual(tool.main(["--sizes", self.sizes, "--energy", self.energy]), 0)
        with open(os.path.join(self.tmp, "docs", "results", "test-gpu-9000-synthetic-ozaki.md"), encoding="utf-8") as f:
            text = f.read()
        self.assertIn("--out docs/results/test-gpu-9000-synthetic-ozaki.md`", text)
        self.assertNotIn("## Accuracy", text)

    def test_bad_input(self):
        other = runner_doc("sgemm_runner", [timed(0, "cublas", SQ1, 1.0, 100.0, 100.0, 1e-7)])
        other["device"]["name"] = "Another GPU"
        cases = ((["--energy", self.energy], "the following arguments are required: --sizes"),
                 (["--sizes", os.path.join(self.tmp, "missing.json"), "--energy", self.energy], "cannot read"),
                 (["--sizes", self.sizes, "--energy", self.write("bad.json", "{not json")], "malformed JSON"),
                 (["--sizes", self.sizes, "--energy", self.write("old.json", {"schema": "x"})], "schema is 'x'"),
                 (["--sizes", self.sizes, "--energy", self.write("other.json", other)], "from different devices"))
        for args, message in cases:
            proc = self.run_tool(*args, "--out", self.out)
            self.assertEqual(proc.returncode, 2, args)
            self.assertIn(message, proc.stderr)
            self.assertFalse(os.path.exists(self.out))

    def test_formats(self):
        self.assertEqual([sr.fmt_sig(x) for x in (0.0221, 0.99999, 1936.94, 9.996, 0, None)],
                         ["0.0221", "1.00", "1937", "10.0", "0", "—"])
        self.assertEqual(sr.fmt_sig(166.7418, 5), "166.74")
        self.assertEqual([sr.fmt_err(x) for x in (1.1455e-06, 0.0, None)], ["1.15e-06", "0", "–"])
        self.assertEqual(sr.fmt_err(None, "n/a"), "n/a")
        self.assertEqual([sr.err_ratio(*p) for p in ((2e-7, 1e-7), (0.0, 0.0), (1e-7, None), (None, 1e-7))],
                         [2.0, None, None, None])



class AbCompareTest(unittest.TestCase):
    """scripts/ab_compare on synthetic builds of one sweep: statistics, time ratios, usage errors."""

    def write(self, d, name, factor, pct_scale):
        doc = synthetic_doc()
        for r in doc["results"]:
            if r["kernel"] == 3:
                r["median_ms"] *= factor(r)
                r["pct_cublas"] *= pct_scale
        path = os.path.join(d, name)
        with open(path, "w") as f:
            json.dump(doc, f)
        return path

    def run_tool(self, *args):
        return subprocess.run([sys.executable, os.path.join(SCRIPTS, "ab_compare"), *args], capture_output=True,
                              text=True)

    def test_ratios_and_statistics(self):
        with tempfile.TemporaryDirectory() as d:
            a = self.write(d, "a.json", lambda r: 1.0, 1.0)
            # b: every shape 2x faster but the 3000^3 one, 4x slower.
            b = self.write(d, "b.json", lambda r: 4.0 if r["M"] == 3000 else 0.5, 1.0)
            out = os.path.join(d, "ab.json")
            p = self.run_tool("--kernels", "3", "--worst", "2", f"a={a}", f"b={b}", "--out", out)
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(out) as f:
                doc = json.load(f)
        k = doc["kernels"]["3"]
        self.assertEqual(doc["builds"], ["a", "b"])
        self.assertEqual(k["shapes"], 5)
        self.assertAlmostEqual(k["builds"]["a"]["time_ratio"], 1.0)
        self.assertAlmostEqual(k["builds"]["b"]["time_ratio"], math.exp((4 * math.log(0.5) + math.log(4.0)) / 5))
        pct = [77.5, 81.3, 70.0, 80.0, 90.0]
        self.assertAlmostEqual(k["builds"]["a"]["geomean"], math.exp(sum(map(math.log, pct)) / 5))
        self.assertAlmostEqual(k["builds"]["a"]["min"], 70.0)
        self.assertAlmostEqual(k["builds"]["a"]["p5"], sr.percentile(pct, 5))
        # The largest change first (x4 beats x0.5), then ties by shape.
        self.assertEqual([(c["M"], round(c["time_ratio"], 6)) for c in k["changed"]], [(3000, 4.0), (1024, 0.5)])

    def test_only_shapes_every_build_passed(self):
        with tempfile.TemporaryDirectory() as d:
            a = self.write(d, "a.json", lambda r: 1.0, 1.0)
            doc = synthetic_doc()
            for r in doc["results"]:
                if r["kernel"] == 3 and r["M"] == 3000:
                    r["status"] = "FAIL"
                    r["median_ms"] *= 100  # a failed row must not count, however slow
            doc["results"] = [r for r in doc["results"] if not (r["kernel"] == 3 and r["M"] == 1024)]
            doc["results"] += [dict(r, tune_candidate=True, median_ms=1e9) for r in doc["results"] if r["kernel"] == 3]
            for r in doc["results"]:
                r.setdefault("tune_candidate", False)  # as the runner writes it
            b = os.path.join(d, "b.json")
            with open(b, "w") as f:
                json.dump(doc, f)
            out = os.path.join(d, "ab.json")
            p = self.run_tool("--kernels", "03", f"a={a}", f"b={b}", "--out", out)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("not counted", p.stderr)
            with open(out) as f:
                k = json.load(f)["kernels"]["3"]
        self.assertEqual(k["shapes"], 3)  # 3000^3 failed in b, 1024^3 missing from b
        self.assertEqual(k["left_out"], {"a": 2, "b": 1})
        self.assertAlmostEqual(k["builds"]["b"]["time_ratio"], 1.0)
        self.assertEqual({c["layout"] for c in k["changed"]}, {"NN"})

    def test_usage_and_input_errors(self):
        with tempfile.TemporaryDirectory() as d:
            a = self.write(d, "a.json", lambda r: 1.0, 1.0)
            self.assertEqual(self.run_tool("--kernels", "3", f"a={a}").returncode, 2)  # one build only
            self.assertEqual(self.run_tool("--kernels", "3", f"a={a}", f"a={a}").returncode, 2)  # a name twice
            self.assertEqual(self.run_tool("--kernels", "x", f"a={a}", f"b={a}").returncode, 2)
            self.assertEqual(self.run_tool("--kernels", "3", a, f"b={a}").returncode, 2)  # not NAME=FILE
            missing = self.run_tool("--kernels", "7", f"a={a}", f"b={a}")
            self.assertEqual(missing.returncode, 1)
            self.assertIn("kernel 7 has no passing shape common to all files", missing.stderr)
            bad = os.path.join(d, "bad.json")
            with open(bad, "w") as f:
                f.write("{")
            self.assertEqual(self.run_tool("--kernels", "3", f"a={a}", f"b={bad}").returncode, 1)


if __name__ == "__main__":
    unittest.main(verbosity=2)
