#!/usr/bin/env python3
"""scripts/pictures, proven on planted changes first, then the committed figures checked
(`scripts/pictures --check`). CTest pictures_check; standard library only, no GPU, no build.

  python3 tests/test_pictures.py [-v]
"""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "scripts", "pictures")
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import sgemm_results as sr  # noqa: E402

pictures = sr.load_script(SCRIPT, "pictures")

# The names the step-page template links to (docs/kernels/*.md, "## The picture").
NAMES = (["%02d-thread-map.svg" % n for n in range(1, 8)] +
         ["08-timeline.svg", "09a-timeline.svg", "09b-tile.svg", "09-rasterization.svg", "10-waves.svg",
          "11-timeline.svg", "12-split.svg", "13-decision.svg", "14-residues.svg"])

TIMELINE_08 = """step,block,sm,role,k_tile,event,cycle
08,0,5,all,0,issue,0
08,0,5,all,0,ready,600
08,0,5,all,0,compute_begin,650
08,0,5,all,1,issue,660
08,0,5,all,1,ready,1500
08,0,5,all,0,compute_end,1550
08,0,5,all,1,compute_begin,1560
08,0,5,all,1,compute_end,2400
08,64,9,all,0,issue,0
08,64,9,all,0,compute_begin,700
08,64,9,all,0,compute_end,1600
"""

TIMELINE_11 = """step,block,sm,role,k_tile,event,cycle
11,0,3,producer,0,issue,0
11,0,3,producer,1,issue,40
11,0,3,consumer0,0,ready,900
11,0,3,consumer1,0,ready,910
11,0,3,consumer0,0,compute_begin,920
11,0,3,consumer1,0,compute_begin,930
11,0,3,consumer0,0,compute_end,1600
11,0,3,consumer1,0,compute_end,1610
11,0,3,consumer0,1,ready,1601
11,0,3,consumer0,1,compute_begin,1605
11,0,3,consumer0,1,compute_end,2300
"""


def run(*args):
    return subprocess.run([sys.executable, SCRIPT] + list(args), capture_output=True, text=True)


def planted_root(tmp, with_results=True):
    """A copy of kernels/ (to edit) and, read-only, the committed docs/results/ entries."""
    shutil.copytree(os.path.join(ROOT, "kernels"), os.path.join(tmp, "kernels"))
    results = os.path.join(tmp, "docs", "results")
    os.makedirs(os.path.join(results, "raw"))
    if with_results:
        src = os.path.join(ROOT, "docs", "results")
        for name in os.listdir(src):
            if name != "raw":
                os.symlink(os.path.join(src, name), os.path.join(results, name))
        for name in os.listdir(os.path.join(src, "raw")):
            os.symlink(os.path.join(src, "raw", name), os.path.join(results, "raw", name))
    return tmp


def edit(root, rel, old, new):
    path = os.path.join(root, rel)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    assert old in text, "planted edit: %r not in %s" % (old, rel)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text.replace(old, new))


class Pictures(unittest.TestCase):
    def test_list_names_every_template_figure(self):
        r = run("--list")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(sorted(r.stdout.split()), sorted(NAMES))

    def test_check_finds_a_planted_change_a_missing_and_a_stale_figure(self):
        with tempfile.TemporaryDirectory() as out:
            self.assertEqual(run("--out", out).returncode, 0)
            self.assertEqual(run("--check", "--out", out).returncode, 0)
            figure = os.path.join(out, "05-thread-map.svg")
            with open(figure, "a", encoding="utf-8") as f:
                f.write("<!-- planted -->\n")
            os.remove(os.path.join(out, "10-waves.svg"))
            with open(os.path.join(out, "renamed-figure.svg"), "w", encoding="utf-8") as f:
                f.write("<svg/>\n")
            r = run("--check", "--out", out)
            self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
            self.assertIn("differs: 05-thread-map.svg", r.stdout)
            self.assertIn("missing: 10-waves.svg", r.stdout)
            self.assertIn("not drawn by scripts/pictures: renamed-figure.svg", r.stdout)
            self.assertNotIn("01-thread-map.svg", r.stdout)

    def test_output_is_deterministic(self):
        with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
            self.assertEqual(run("--out", a).returncode, 0)
            self.assertEqual(run("--out", b).returncode, 0)
            for name in sorted(os.listdir(a)):
                with open(os.path.join(a, name), "rb") as fa, open(os.path.join(b, name), "rb") as fb:
                    self.assertEqual(fa.read(), fb.read(), name)

    def test_numbers_come_from_the_kernels(self):
        with tempfile.TemporaryDirectory() as tmp:
            root = planted_root(tmp)
            edit(root, "kernels/05_blocktiling_2d.cu", "constexpr int kBM = 128, kBN = 128,",
                 "constexpr int kBM = 64, kBN = 128,")
            edit(root, "kernels/09_cp_async_multistage.cu", "Gemm<128, 256, 8, 64, 64, 4, 2, 16, 8, 5, 8, true>{},\n"
                 "    {.number = 9,", "Gemm<128, 256, 8, 64, 64, 4, 2, 16, 8, 5, 4, true>{},\n    {.number = 9,")
            self.assertIn("C tile 64 × 128", pictures.smem_map(root, 5))
            self.assertIn("GROUP_M = 4", pictures.rasterization(root))

    def test_a_changed_formula_stops_the_script(self):
        with tempfile.TemporaryDirectory() as tmp:
            root = planted_root(tmp)
            edit(root, "kernels/05_blocktiling_2d.cu", "const int tx = tid % kThreadsN;",
                 "const int tx = tid / kThreadsN;")
            out = os.path.join(tmp, "figures")
            r = run("--root", root, "--out", out)
            self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
            self.assertIn("kernels/05_blocktiling_2d.cu no longer contains", r.stderr)
            self.assertIn("const int tx = tid % kThreadsN;", r.stderr)

    def test_registrations_are_read_with_sub_steps(self):
        text = """
template <int BM, int BN, int STAGES, int GROUP_M, bool kCheck,
          typename Trace = NoTrace>
struct Gemm {};
static const sgemm::Registration registration_9a{
    Gemm<128, 128, 4, 1, true>{},
    {.number = 9, .part = 'a', .name = "pipeline", .idea = "a; b {c}", .sass = {.required = {"LDS.128"}}}};
static const sgemm::Registration registration{Gemm<128, 256, 5, 8, true>{}, {.number = 9, .name = "whole"}};
"""
        regs = pictures.registrations(text)
        self.assertEqual([(r["number"], r["part"], r["args"]) for r in regs],
                         [(9, "a", [128, 128, 4, 1, True]), (9, None, [128, 256, 5, 8, True])])
        self.assertEqual(pictures.template_params(text, "x"), ["BM", "BN", "STAGES", "GROUP_M", "kCheck", "Trace"])
        with self.assertRaises(pictures.PictureError):
            pictures.template_params("struct Gemm {};", "x")

    def test_timeline_renders_a_synthetic_csv(self):
        svg = pictures.timeline_svg(TIMELINE_08, "Step 08", "2 stages", "H200")
        self.assertIn("measured on H200: block 0 (SM 5), its first 2 k-tiles", svg)
        self.assertEqual(svg.count('fill="#e67e22"'), 2 + 1)  # a compute bar per k-tile (role all), the legend
        svg = pictures.timeline_svg(TIMELINE_11, "Step 11", "6 stages", "H100")
        self.assertIn("compute (consumer0)", svg)
        self.assertIn("compute (consumer1)", svg)
        self.assertIn("producer issues", svg)
        with self.assertRaises(pictures.PictureError):
            pictures.timeline_svg("a,b\n1,2\n", "x", "y", "z")

    def test_timelines_wait_for_their_csv_and_prefer_an_h100(self):
        with tempfile.TemporaryDirectory() as tmp:
            root = planted_root(tmp, with_results=False)
            notes = []
            self.assertIsNone(pictures.timeline(root, "08", notes))
            self.assertIn("08-timeline.svg skipped", notes[0])
            for device in ("h200", "h100"):
                d = os.path.join(root, "docs", "results", "raw", device + "-timeline")
                os.makedirs(d)
                with open(os.path.join(d, "08.csv"), "w", encoding="utf-8") as f:
                    f.write(TIMELINE_08)
            svg = pictures.timeline(root, "08", notes)
            self.assertIn("measured on H100", svg)
            self.assertIn("2 stages: up to 1 k-tile in flight", svg)  # As[2][BK][...] of step 08
            with open(os.path.join(root, "docs", "results", "raw", "h200-timeline", "09a.csv"), "w",
                      encoding="utf-8") as f:
                f.write(TIMELINE_08.replace("08,", "09a,"))
            stages = pictures.registered_config(root, 9, "a")["STAGES"]
            svg = pictures.timeline(root, "09a", notes)
            self.assertIn("measured on H200", svg)
            self.assertIn("%d stages: up to %d k-tiles in flight" % (stages, stages - 1), svg)


class Committed(unittest.TestCase):
    def test_committed_figures_are_up_to_date(self):
        r = run("--check")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)


if __name__ == "__main__":
    unittest.main()
