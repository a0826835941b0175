#!/usr/bin/env python3
"""Tests for scripts/report, scripts/bench, scripts/ncu_summary.py and the SASS parsing of
tests/check_sass.py and scripts/sass_stats (on made-up SASS text); no GPU and no CUDA tool needed.

Run from the repository root:  python3 tests/test_report.py
The results JSON here is synthetic: it exists only to test the tools. The PNG checks are
skipped (with a message) when matplotlib is not importable; everything else always runs.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
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
        self.assertIn(f"| 03 | warptiling | 41.2 | 81.3% | {g3:.1f}% |", readme)
        self.assertIn("| 02 | smem_tiling | 7.04 (FAIL) | 13.9% |", readme)
        self.assertIn("| 01 | naive | capped | capped | 0.75% (1 of 3 sizes) |", readme)
        self.assertIn("| 00 | cuBLAS (reference) | 50.7 | 100.0% | 100.0% |", readme)
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
        spec = importlib.util.spec_from_loader("report_mod", importlib.machinery.SourceFileLoader("report_mod", REPORT))
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        self.assertAlmostEqual(mod.compulsory_intensity((4096, 4096, 4096)), 4096 / 6)
        self.assertAlmostEqual(mod.compulsory_intensity((2, 3, 4)), 2 * 24 / (4 * (8 + 12 + 6)))

    def test_no_ceilings_no_roofline(self):
        proc = self.ok()
        self.assertFalse(os.path.exists(os.path.join(self.out, self.slug + "-roofline.png")))
        self.assertNotIn("roofline", self.read(self.md))
        if HAVE_MPL:
            self.assertIn("no --ceilings FILE; skipping the", proc.stderr)
        # Steps 08-10 are absent from the synthetic sweep: no irregular plot either.
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
        self.assertIn("% of cuBLAS per irregular shape for steps 08, 09, 10,", md)
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
            self.assertIn("% of cuBLAS per irregular shape for steps 08, 09, 10, 12,", md)
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
KERNELS = [(0, "cublas", "NVIDIA cuBLAS (reference)"), (1, "naive", "one thread per element"),
           (2, "coalesced", "coalesced global loads"), (3, "tiled", "shared-memory tiles"),
           (103, "tiled_noedge", "step 03 without edge handling")]
args = sys.argv[1:]
with open(os.environ["FAKE_RUNNER_LOG"], "a") as log:
    log.write(json.dumps(args) + "\n")
if "--list" in args:
    print(json.dumps({"schema": "sgemm-steps-list/1", "tuning_from": 100,
                      "kernels": [{"number": n, "name": name, "label": f"{n:02d}_{name}", "idea": idea,
                                   "requirements": {"min_cc": 0, "needs_sm90a": False}, "precision": "fp32",
                                   "tuning_variant": n >= 100, "tunable": False} for n, name, idea in KERNELS]}))
    sys.exit(0)
opt = lambda key, default=None: args[args.index(key) + 1] if key in args else default
m, n, k = (int(x) for x in opt("--size").split(","))
if m == 13:  # names its own path and its --json path, as a real error message may
    print(f"CUDA error: out of memory (fake) in {sys.argv[0]} writing {opt('--json')}", file=sys.stderr)
    sys.exit(3)
wanted = [int(x) for x in opt("--kernel").split(",")]
flop = 2.0 * m * n * k
cublas_ms = flop / 40e12 * 1e3
rows = []
for number in [0] + [w for w in wanted if w != 0]:
    name = {kn: name for kn, name, _ in KERNELS}[number]
    ms = cublas_ms * (1 if number == 0 else 10.0 / number)
    rows.append({"kernel": number, "name": name, "M": m, "N": n, "K": k, "median_ms": ms, "min_ms": ms,
                 "tflops": flop / ms / 1e9, "pct_cublas": cublas_ms / ms * 100, "rel_err": 0.0, "bound": 1e-5,
                 "cublas_rel_err": 0.0, "max_abs_diff_cublas": 0.0, "nonfinite": 0,
                 "componentwise_violations": 0, "status": "PASS"})
doc = {"schema": "sgemm-steps/1", "generated_utc": "2026-01-01T00:00:00Z", "command": " ".join(sys.argv),
       "device": {"index": 0, "name": "Fake GPU", "sm_clock_max_mhz": 2000, "sm_clock_now_mhz": 1500 + m % 7,
                  "mem_clock_now_mhz": 3000, "driver_version": "1.0", "cublas": "0.0"},
       "settings": {"alpha": 1.0, "beta": 0.0, "warmup": int(opt("--warmup", 5)), "reps": int(opt("--reps", 20)),
                    "seed": 1234, "l2": "flushed", "check": True},
       "results": rows}
if opt("--json"):
    with open(opt("--json"), "w") as f:
        json.dump(doc, f)
'''


class BenchTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="test-bench-")
        self.runner = os.path.join(self.tmp, "fake_runner")
        with open(self.runner, "w") as f:
            f.write(f"#!{sys.executable}\n" + textwrap.dedent(FAKE_RUNNER))
        os.chmod(self.runner, os.stat(self.runner).st_mode | stat.S_IXUSR)
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
        readme, docs = os.path.join(self.tmp, "README.md"), os.path.join(self.tmp, "docs-README.md")
        for path, text in ((readme, README), (docs, DOCS_README)):
            with open(path, "w") as f:
                f.write(text)
        proc = subprocess.run([sys.executable, REPORT, "--json", self.out, "--out-dir", self.tmp, "--readme", readme,
                               "--docs-readme", docs, "--no-plots"], capture_output=True, text=True)
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
        self.assertEqual(doc["command"], f"scripts/bench --runner fake_runner --out bench.json "
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

    def test_bad_arguments(self):
        for args, message in ((("--kernels", "nosuch"), "unknown kernel 'nosuch'"),
                              (("--sizes", "1,2"), "bad size"),
                              (("--cap", "9=100"), "unknown kernel '9'"),
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
        readme, docs = os.path.join(self.tmp, "README.md"), os.path.join(self.tmp, "docs-README.md")
        for path, text in ((readme, README), (docs, DOCS_README)):
            with open(path, "w") as f:
                f.write(text)
        proc = subprocess.run([sys.executable, REPORT, "--json", self.out, "--out-dir", self.tmp, "--readme", readme,
                               "--docs-readme", docs, "--no-plots"], capture_output=True, text=True)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(os.path.join(self.tmp, "fake-gpu.md"), encoding="utf-8") as f:
            md = f.read()
        self.assertIn("Skipped by cap: **01_naive** (cap 2048³ work) at 4096³, 4095×4097×4093.", md)
        self.assertIn("| 03 | tiled | 12.0 (30.0%) | 12.0 (30.0%) |", md)


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

    def test_no_rows(self):
        with self.assertRaises(ncu_summary.SummaryError):
            ncu_summary.parse_raw_csv("==PROF== nothing profiled\n")

    def test_rejected_metrics(self):
        log = "==ERROR== Failed to find metric smsp__average_warps_issue_stalled_imc_miss_per_issue_active.ratio\n"
        self.assertEqual(ncu_summary.metrics_named_in(log),
                         ["smsp__average_warps_issue_stalled_imc_miss_per_issue_active.ratio"])
        self.assertEqual(ncu_summary.metrics_named_in("launch__shared_mem_per_block_static is fine\n"), [])


def load_script(name, path):
    spec = importlib.util.spec_from_loader(name, importlib.machinery.SourceFileLoader(name, path))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


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
        ss = load_script("sass_stats_mod", os.path.join(SCRIPTS, "sass_stats"))
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

    def test_check_sass_names_and_archs(self):
        import check_sass
        self.assertTrue(check_sass.named("sgemm_12_3xtf32_wgmma", "_ZN5sgemm21sgemm_12_3xtf32_wgmmaILi1EEEvv"))
        self.assertFalse(check_sass.named("sgemm_12_3xtf32_wgmma", "_ZN5sgemm27sgemm_12_3xtf32_wgmma_splitILb1EEEvv"))
        self.assertTrue(check_sass.named("sgemm_06_", "_ZN5sgemm19sgemm_06_vectorizedILi1EEEvv"))
        self.assertEqual(check_sass.shown(r"\bHGMMA\.\S*\.TF32\b"), "HGMMA.*.TF32")
        self.assertTrue(re.search(check_sass.REQUIRED[-1][1], "HGMMA.64x256x8.F32.TF32 R24, gdesc[UR4], R24"))
        self.assertFalse(re.search(check_sass.REQUIRED[-1][1], "HGMMA.64x256x16.F32.BF16 R24, gdesc[UR4], R24"))
        text = "\tcode for sm_80\n" + sass_function("sgemm_11_x", [(0, "EXIT")]) + \
               "\tcode for sm_90\n" + sass_function("sgemm_11_x", [(0, "UTMALDG.2D [UR4], [UR6]")])
        with mock.patch.object(check_sass, "run_cuobjdump", lambda *args: text):
            functions = check_sass.kernels_sass("bin", "cuobjdump", None)
        self.assertEqual(sorted(arch for _, arch in functions), ["sm_80", "sm_90"])


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
        tool = load_script("accuracy_table_mod", os.path.join(SCRIPTS, "accuracy_table"))
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


if __name__ == "__main__":
    unittest.main(verbosity=2)
