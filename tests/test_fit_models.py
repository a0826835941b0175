#!/usr/bin/env python3
"""Tests for scripts/fit_models: its copies of steps 12's and 14's models give the times the C++ models
gave on a device run (step 13 prints both models' times for every shape it plans: "model: tensor 1399.2
us, ..., int8 1417.3 us"), its row filter and plan parsing, and its exit status on a file without rows.
Standard library only; no GPU, no build.

Run from the repository root:  python3 tests/test_fit_models.py
"""

import importlib.machinery
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOL = os.path.join(REPO, "scripts", "fit_models")
# A zoo of the build whose models fit_models copies: kernels 12, 13 and 14 on 259 shapes of an H100.
ZOO = os.path.join(REPO, "docs", "results", "raw", "h100-model-refit", "zoo-new.json")

loader = importlib.machinery.SourceFileLoader("fit_models", TOOL)
spec = importlib.util.spec_from_loader("fit_models", loader)
fm = importlib.util.module_from_spec(spec)
loader.exec_module(fm)


def step13_models(doc):
    """{(M, N, K): (tensor seconds or None, int8 seconds or None)} from step 13's configurations."""
    out = {}
    for r in doc["results"]:
        m = re.search(r"model: tensor ([\d.]+|n/a)(?: us)?, .*int8 ([\d.]+|n/a)", r.get("config") or "")
        if r["kernel"] == 13 and r.get("status") == "PASS" and m:
            sec = [None if x == "n/a" else float(x) * 1e-6 for x in m.groups()]
            out[(r["M"], r["N"], r["K"])] = tuple(sec)
    return out


class CopiesOfTheModels(unittest.TestCase):
    def test_the_committed_constants_are_read_from_the_sources(self):
        for c in (fm.NOW12, fm.NOW14):
            for name, value in c.items():
                self.assertGreater(value, 0, name)
        self.assertNotEqual(fm.NOW12, fm.BEFORE12)

    def test_step12_and_step14_as_the_device_run_modelled_them(self):
        with open(ZOO) as f:
            doc = json.load(f)
        printed = step13_models(doc)
        compared = {12: 0, 14: 0}
        for kernel, g, M, N, K, _, plan in fm.rows([ZOO]):
            tensor, int8 = printed[(M, N, K)]
            want = tensor if kernel == 12 else int8
            got = fm.MODELS[kernel](g, M, N, K, plan, fm.NOW12 if kernel == 12 else fm.NOW14)
            # step 13 prints 0.1 us: the copy must agree to that and to 0.5 % (C's pointer alignment aside,
            # which the runner's allocations fix).
            self.assertLess(abs(got - want), max(0.05e-6, 0.005 * want), f"step {kernel} {M}x{N}x{K}")
            compared[kernel] += 1
        self.assertGreater(compared[12], 150)
        self.assertGreater(compared[14], 150)

    def test_a_changed_constant_is_seen(self):
        # The comparison above can fail: a 10 % slower mainloop moves most shapes' step 12 time by more than 0.5 %.
        with open(ZOO) as f:
            doc = json.load(f)
        printed = step13_models(doc)
        slower = dict(fm.NOW12, fraction=fm.NOW12["fraction"] * 0.9)
        off = sum(abs(fm.step12(g, M, N, K, plan, slower) - printed[(M, N, K)][0]) > 0.005 * printed[(M, N, K)][0]
                  for kernel, g, M, N, K, _, plan in fm.rows([ZOO]) if kernel == 12)
        self.assertGreater(off, 100)


    def test_a_fused_plan_uses_the_fused_constants_only(self):
        # The fused kernel has no pre-pass: its time follows its own mainloop fraction and tile cost, not
        # the pre-pass GEMM's fraction or the pre-pass's DRAM fraction.
        g = dict(sms=132, clock=1.98e9, dram=3.35e12)
        plan = dict(splits=8, per=256, fine=False, fused=True)
        t = fm.step12(g, 512, 512, 32768, plan, fm.NOW12)
        for name in ("fraction", "split"):
            self.assertAlmostEqual(fm.step12(g, 512, 512, 32768, plan, dict(fm.NOW12, **{name: fm.NOW12[name] * 0.9})),
                                   t, delta=1e-12, msg=name)
        for name in ("fused_fraction", "fused_tile"):
            self.assertNotAlmostEqual(
                fm.step12(g, 512, 512, 32768, plan, dict(fm.NOW12, **{name: fm.NOW12[name] * 0.9})), t, delta=1e-7,
                msg=name)
        self.assertNotAlmostEqual(fm.step12(g, 512, 512, 32768, dict(plan, fused=False), fm.NOW12), t, delta=1e-7)


class Tool(unittest.TestCase):
    def test_a_file_without_rows_exits_1(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "empty.json")
            with open(ZOO) as f:
                doc = json.load(f)
            doc["results"] = [r for r in doc["results"] if r["kernel"] == 0]
            with open(path, "w") as f:
                json.dump(doc, f)
            p = subprocess.run([sys.executable, TOOL, "--fit", path], capture_output=True, text=True)
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertIn("no rows of steps 12 or 14", p.stderr)

    def test_prints_and_writes_the_table(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "fit.json")
            p = subprocess.run([sys.executable, TOOL, "--fit", ZOO, "--out", out], capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(out) as f:
                table = json.load(f)["table"]
            self.assertEqual({(t["kernel"], t["constants"]) for t in table},
                             {(12, "before"), (12, "committed"), (14, "before"), (14, "committed")})
            self.assertIn("step 12 committed", p.stdout)


if __name__ == "__main__":
    unittest.main()
