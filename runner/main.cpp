// sgemm_runner: validates every selected kernel against a float64 reference and
// cuBLAS, and times it next to cuBLAS in the same run. See README.md.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "cli.h"
#include "exit_status.h"
#include "common/check.h"
#include "common/gpu_rates.h"
#include "copy_bandwidth.h"
#include "device_info.h"
#include "energy.h"
#include "problem.h"
#include "provenance.h"
#include "report.h"
#include "roofline.h"

using namespace sgemm;

namespace {

constexpr int kCopyWarmup = 3, kCopyReps = 10;  // the DRAM bandwidth measurement, once per run

// NVIDIA_TF32_OVERRIDE changes the math libraries' TF32 behaviour behind the
// program's back; any value but 0 is refused so that cuBLAS is plainly FP32.
void refuse_tf32_override() {
    const char* v = std::getenv("NVIDIA_TF32_OVERRIDE");
    if (v && std::string(v) != "0")
        throw UsageError("NVIDIA_TF32_OVERRIDE=" + std::string(v) +
                         " is set: it overrides the math libraries' TF32 choice, so cuBLAS might not be plain FP32. "
                         "Unset it (or set 0).");
}

// The run's rates, measured before any problem is allocated: the theoretical FFMA peak and the DRAM
// bandwidth a copy kernel reaches.
Roofline measure_roofline(const DeviceInfo& device, int cc) {
    const CopyBandwidth copy = measure_copy_bandwidth(roofline_copy_bytes(), kCopyWarmup, kCopyReps);
    Roofline r;
    r.dram_gbs_measured = copy.gb_per_s;
    r.copy_bytes = copy.bytes;
    r.method = copy_method(kCopyWarmup, kCopyReps);
    r.ffma_peak_tflops = device.ffma_peak_tflops;
    r.fp32_lanes_per_sm = fp32_lanes_per_sm(cc);
    return r;
}

Result base_result(const KernelInfo& k, const Size& s, const GemmArgs& args, Distribution init,
                   const std::optional<Roofline>& roofline) {
    Result r;
    r.kernel = k.spec.number;
    r.name = k.name;
    r.step = k.step;
    if (k.is_sub_step()) r.part = std::string(1, k.spec.part);
    r.M = s.M, r.N = s.N, r.K = s.K;
    r.init = to_string(init);
    r.layout = layout_name(args);
    r.precision = to_string(k.spec.precision);
    r.config = k.describe(args);
    // The roof belongs to the shape, so an N/A row has it too; its pct_roof stays empty.
    if (roofline)
        if (const auto roof = gemm_roof(s.M, s.N, s.K, args.beta, roofline->ffma_peak_tflops.value_or(0) * 1e12,
                                        roofline->dram_gbs_measured * 1e9)) {
            r.roof_ms = roof->seconds * 1e3;
            r.roof_bound = roof->bound;
        }
    return r;
}

// Why `k` cannot run here on `args` (requirements, then can_implement), or empty.
std::string not_runnable(const KernelInfo& k, int cc, const GemmArgs& args) {
    if (std::string why = k.unmet_requirements(cc); !why.empty()) return why;
    return k.can_implement(args);
}

// cublas_ms: cuBLAS's median in this table (0 for cuBLAS itself); tuned_ms: the tuned baseline's, where it
// ran in this table; meter: with --energy where NVML has an energy counter (else null: no energy window).
Result measure(Problem& p, const KernelInfo& k, const Launcher& launcher, Result r, const Options& opt,
               double cublas_ms, std::optional<double> tuned_ms, const EnergyMeter* meter) {
    const Size s = p.size();
    r.workspace_bytes = launcher.workspace_bytes;
    r.status = "UNCHECKED";
    p.run_once(launcher);
    if (opt.check) {
        const CheckResult c = p.verify();
        r.rel_err = c.rel_err;
        r.bound = normwise_bound(s.K);
        if (k.spec.number != 0) r.max_abs_diff_cublas = c.max_abs_diff_base;
        r.nonfinite = c.stats.nonfinite;
        r.missed_nonfinite = c.stats.missed_nonfinite;
        r.componentwise_violations = c.stats.violations;
        r.inexact = c.stats.inexact;
        r.outside_writes = c.outside_writes;
        r.status = to_string(verdict(c, s.K, k.spec.precision));
    }
    if (k.spec.number == 0) p.keep_as_baseline();
    const Clocks before = current_clocks(opt.device);
    const Timing t = p.time(launcher, opt.warmup, opt.reps, opt.hot_l2);
    const Clocks after = current_clocks(opt.device);
    r.sm_clock_before_mhz = before.sm_mhz, r.mem_clock_before_mhz = before.mem_mhz;
    r.sm_clock_after_mhz = after.sm_mhz, r.mem_clock_after_mhz = after.mem_mhz;
    const double flop = 2.0 * s.M * double(s.N) * s.K;
    r.median_ms = t.median_ms;
    r.min_ms = t.min_ms;
    r.tflops = flop / (t.median_ms * 1e-3) / 1e12;
    r.pct_cublas = k.spec.number == 0 ? 100.0 : 100.0 * cublas_ms / t.median_ms;
    if (tuned_ms) r.pct_tuned = 100.0 * *tuned_ms / t.median_ms;
    if (r.roof_ms) r.pct_roof = 100.0 * *r.roof_ms / t.median_ms;
    if (meter) {
        // After the timing, which stays as it is: the counter is too coarse for single launches (energy.h).
        std::int64_t gemms = 0;
        const EnergySample w = meter->measure([&] {
            gemms =
                fill_window(opt.energy_window_s, t.median_ms, [&](std::int64_t n) { p.run_back_to_back(launcher, n); });
        });
        const EnergyPerGemm e = per_gemm(w, gemms, flop);
        r.energy_j = e.joules, r.gflop_per_j = e.gflop_per_j, r.power_w = e.watts;
        r.power_max_w = w.power_max_w, r.sm_clock_mhz = w.sm_clock_mhz;
        r.energy_window_s = w.seconds, r.energy_gemms = gemms;
    }
    return r;
}

// The pass criteria, for the title of a table.
std::string pass_rule(Distribution init, float alpha, float beta, int K) {
    char bound[32];
    std::snprintf(bound, sizeof bound, "%.2e", normwise_bound(K));
    std::string rule = std::string("pass: ") +
        (init == Distribution::kSpecial ? "NaN/Inf exactly where R has them" : "no NaN/Inf") +
        ", componentwise within gamma_{K+2}, ";
    // R cancels: the printed rel err is against ||R|| and may exceed the bound of a passing result.
    rule += init == Distribution::kCancel ? "||C - R|| <= " + std::string(bound) + " max(||R||, ||Rabs||/sqrt(K))"
                                          : "rel err <= " + std::string(bound);
    if (exact_limit(init, alpha, beta) != kNoExactness) rule += ", exact";
    return rule;
}

void print_row(const Result& r, const Options& opt, bool tuned) {
    std::printf("%s", table_row(r, tuned, opt.energy).c_str());
    if (opt.verbose && !r.config.empty()) std::printf("%4s %s\n", "", ("  config: " + r.config).c_str());
    std::fflush(stdout);
}

// --tune: every candidate configuration of a kernel that chooses by shape, timed like a kernel.
void tune(Problem& p, const KernelInfo& k, const Options& opt, double cublas_ms, std::optional<double> tuned_ms,
          const EnergyMeter* meter, Report& report, bool& all_pass) {
    const GemmArgs& args = p.args();
    const std::string pick = k.describe(args);
    std::printf("  --tune %s: %s\n", k.label().c_str(), pick.empty() ? "" : ("launch() picks: " + pick).c_str());
    const Result* best = nullptr;
    const std::size_t first = report.results.size();
    for (const Candidate& c : k.spec.candidates(args)) {
        Result r = base_result(k, p.size(), args, p.init(), report.roofline);
        r.config = c.description;
        r.tune_candidate = true;
        r.picked = c.description == pick;
        r = measure(p, k, launcher_of(k, c), r, opt, cublas_ms, tuned_ms, meter);
        all_pass &= r.status != "FAIL";
        std::printf("    %-52s %10.4f ms %9.2f TFLOP/s %8.1f%%  %s%s\n", r.config.c_str(), r.median_ms, r.tflops,
                    r.pct_cublas, r.status.c_str(), r.picked ? "  <- pick" : "");
        std::fflush(stdout);
        report.results.push_back(r);
    }
    for (std::size_t i = first; i < report.results.size(); ++i)
        if (!best || report.results[i].median_ms < best->median_ms) best = &report.results[i];
    const Result* picked = nullptr;
    for (std::size_t i = first; i < report.results.size(); ++i)
        if (report.results[i].picked) picked = &report.results[i];
    if (best) {
        std::printf("    best: %s (%.4f ms)", best->config.c_str(), best->median_ms);
        if (picked)
            std::printf("; the pick is %.1f%% slower than the best\n",
                        100.0 * (picked->median_ms / best->median_ms - 1.0));
        else
            std::printf("; the pick is not among the candidates\n");
    }
}

int run(int argc, char** argv) {
    Options opt;
    if (!parse_options(argc, argv, opt)) return 0;
    if (opt.list) {
        if (opt.json.empty()) {
            std::fputs(kernel_list(opt.kernels).c_str(), stdout);
        } else if (opt.json == "-") {
            std::fputs(kernel_list_json(opt.kernels).c_str(), stdout);
        } else {
            const std::string list = kernel_list_json(opt.kernels);  // an unknown --kernel: no file is made
            std::ofstream out(opt.json);
            out << list;
            if (!out) throw std::runtime_error("could not write " + opt.json);
        }
        return 0;
    }
    const auto kernels = select_kernels(opt.kernels);
    if (opt.sizes.empty()) opt.sizes.push_back({4096, 4096, 4096});
    for (const Size& s : opt.sizes)  // the default size too
        for (const Ops l : opt.layouts) check_leading_dimensions(s, opt.ld_pad, l);
    refuse_tf32_override();
    const KernelInfo* cublas = find_kernel("0");
    if (!cublas) throw std::logic_error("cuBLAS (kernel 0) is not registered");
    // The tuned baseline (nullptr: not timed in this run).
    const KernelInfo* tuned = nullptr;
    if (times_tuned_baseline(opt) && !(tuned = find_kernel(std::to_string(kTunedBaseline))))
        throw std::logic_error("the tuned baseline (kernel " + std::to_string(kTunedBaseline) + ") is not registered");

    Report report;
    report.generated_utc = utc_now();
    report.command = portable_command_line(argc, argv);
    report.build = build_info();
    report.device = query_device(opt.device);
    report.settings = {opt.alpha, opt.beta,   opt.warmup, opt.reps, opt.seed, opt.hot_l2 ? "hot" : "flushed",
                       opt.check, opt.ld_pad, opt.offset, {}};
    if (opt.energy) report.settings.energy_window_s = opt.energy_window_s;
    std::string inits, layouts_text;
    for (const Distribution d : opt.inits) {
        report.settings.init.emplace_back(to_string(d));
        inits += (inits.empty() ? "" : ", ") + std::string(to_string(d));
    }
    report.settings.layouts.clear();
    std::vector<Layout> layouts;
    for (const Ops ops : opt.layouts) {
        report.settings.layouts.push_back(layout_name(ops.a, ops.b));
        layouts_text += (layouts_text.empty() ? "" : ", ") + report.settings.layouts.back();
        layouts.push_back({opt.ld_pad, opt.offset, ops.a, ops.b});
    }
    const int cc = compute_capability(opt.device);
    std::printf("%s", device_header(report.device).c_str());
    std::printf("build %s%s, %s, sm %s\n", report.build.git_commit.substr(0, 12).c_str(),
                report.build.git_dirty ? " (dirty)" : "", report.build.build_type.c_str(),
                report.build.cuda_architectures.c_str());
    std::printf("alpha %g, beta %g, inputs %s, layouts %s, %d warm-up + %d timed launches (median), L2 %s, %s\n",
                opt.alpha, opt.beta, inits.c_str(), layouts_text.c_str(), opt.warmup, opt.reps,
                opt.hot_l2 ? "hot (back-to-back)" : "flushed before each launch",
                opt.check ? "checked against float64" : "NOT checked (--no-check)");
    if (opt.ld_pad || opt.offset)
        std::printf(
            "views: lda = K + %d (M + %d with A transposed), ldb = N + %d (K + %d with B transposed), ldc = "
            "N + %d, A, B, C start %d float(s) after an aligned allocation\n",
            opt.ld_pad, opt.ld_pad, opt.ld_pad, opt.ld_pad, opt.ld_pad, opt.offset);

    // Every size and layout, before any work: fits in memory with the largest workspace a runnable kernel
    // asks for.
    auto workspace_for = [&](const Size& s, const Layout& layout) {
        const GemmArgs args = Problem::args_for(s, opt.alpha, opt.beta, layout);
        std::size_t bytes = 0;
        std::vector<const KernelInfo*> timed = kernels;
        if (tuned) timed.push_back(tuned);
        for (const KernelInfo* k : timed) {
            if (!not_runnable(*k, cc, args).empty()) continue;
            bytes = std::max(bytes, k->workspace_bytes(args));
            if (opt.tune && k->spec.candidates)
                for (const Candidate& c : k->spec.candidates(args)) bytes = std::max(bytes, c.workspace_bytes);
        }
        return bytes;
    };
    for (const Size& s : opt.sizes)
        for (const Layout& layout : layouts) Problem::ensure_fits(s, opt.check, layout, workspace_for(s, layout));
    // Once every size is known to fit (one that does not exits 2 before any GPU work) and before any problem
    // is allocated: the copy takes up to half of the free memory for a moment.
    if (opt.roofline) report.roofline = measure_roofline(report.device, cc);
    std::printf("%s", roofline_header(report.device, report.roofline).c_str());
    std::string why_not;
    const std::optional<EnergyMeter> meter = opt.energy ? EnergyMeter::open(opt.device, &why_not) : std::nullopt;
    if (opt.energy) {
        report.energy_meter = meter ? "NVML total-energy counter" : "n/a (" + why_not + ")";
        if (meter)
            std::printf("energy: %s, a window of at least %g s of back-to-back launches after each row's timing\n",
                        report.energy_meter->c_str(), opt.energy_window_s);
        else
            std::printf("energy: %s\n", report.energy_meter->c_str());
    } else {
        std::printf("energy: not measured (--energy, --sustained SECONDS)\n");
    }
    const EnergyMeter* const energy = meter ? &*meter : nullptr;  // null: no energy windows

    bool all_pass = true;
    for (const Size& s : opt.sizes)
        for (const Distribution init : opt.inits)
            for (const Layout& layout : layouts) {
                Problem problem(s, opt.alpha, opt.beta, opt.seed, opt.check, layout, workspace_for(s, layout), init);
                const GemmArgs& args = problem.args();
                if (const std::string bad = validate(args); !bad.empty())
                    throw std::logic_error("sgemm_runner built an invalid GEMM call: " + bad);
                // The tuned baseline, where it runs, right after cuBLAS: a table has the % tuned column
                // when it ran there.
                const std::string tuned_why = tuned ? not_runnable(*tuned, cc, args) : "";
                const bool with_tuned = tuned && tuned_why.empty();
                std::printf("\nM=%d N=%d K=%d, layout %s, inputs %s  (%s)\n%s", s.M, s.N, s.K,
                            layout_name(args).c_str(), std::string(to_string(init)).c_str(),
                            pass_rule(init, opt.alpha, opt.beta, s.K).c_str(),
                            table_header(with_tuned, opt.energy).c_str());
                const Result base =
                    measure(problem, *cublas, launcher_of(*cublas, args),
                            base_result(*cublas, s, args, init, report.roofline), opt, 0, std::nullopt, energy);
                // A checked, timed run of `k` against the baselines, or N/A where it cannot run (which does
                // not count as a failure: the kernel was never launched).
                std::optional<double> tuned_ms;
                auto run = [&](const KernelInfo& k) {
                    Result r = base_result(k, s, args, init, report.roofline);
                    if (const std::string why = not_runnable(k, cc, args); !why.empty()) {
                        r.status = "N/A";
                        r.not_run_reason = why;
                        return r;
                    }
                    r = measure(problem, k, launcher_of(k, args), r, opt, base.median_ms, tuned_ms, energy);
                    r.cublas_rel_err = base.rel_err;
                    return r;
                };
                auto record = [&](const Result& r) {
                    print_row(r, opt, with_tuned);
                    report.results.push_back(r);
                    all_pass &= r.status != "FAIL";
                };
                if (!tuned) {
                    record(base);
                } else {
                    Result r = run(*tuned);
                    if (with_tuned) {
                        r.config = tuned->describe(args);  // its pick, now that the first launch has timed them
                        r.pct_tuned = 100.0;
                        tuned_ms = r.median_ms;
                    }
                    Result cublas_row = base;
                    if (tuned_ms) cublas_row.pct_tuned = 100.0 * *tuned_ms / base.median_ms;
                    record(cublas_row);
                    record(r);
                }
                for (const KernelInfo* k : kernels) {
                    const Result r = run(*k);
                    record(r);
                    if (opt.tune && k->spec.candidates && r.status != "N/A")
                        tune(problem, *k, opt, base.median_ms, tuned_ms, energy, report, all_pass);
                }
            }
    if (!opt.json.empty()) {
        std::ofstream out(opt.json);
        out << to_json(report).dump(2) << '\n';
        if (!out) throw std::runtime_error("could not write " + opt.json);
        std::printf("\nwrote %s\n", opt.json.c_str());
    }
    if (!all_pass) std::printf("\nFAILED: at least one kernel gave a wrong result\n");
    return all_pass ? 0 : kExitFail;
}

}  // namespace

int main(int argc, char** argv) {
    return sgemm::exit_status_of("sgemm_runner", [&] { return run(argc, argv); });
}
