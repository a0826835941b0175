// sgemm_runner: validates every selected kernel against a float64 reference and
// cuBLAS, and times it next to cuBLAS in the same run. See README.md.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <string>

#include "cli.h"
#include "common/check.h"
#include "device_info.h"
#include "problem.h"
#include "report.h"

using namespace sgemm;

namespace {

constexpr int kExitFail = 1, kExitUsage = 2, kExitRuntime = 3;

std::string utc_now() {
    const std::time_t t = std::time(nullptr);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
    return buf;
}

std::string command_line(int argc, char** argv) {
    std::string cmd;
    for (int i = 0; i < argc; ++i) cmd += (i ? " " : "") + std::string(argv[i]);
    return cmd;
}

// NVIDIA_TF32_OVERRIDE changes the math libraries' TF32 behaviour behind the
// program's back; any value but 0 is refused so that cuBLAS is plainly FP32.
void refuse_tf32_override() {
    const char* v = std::getenv("NVIDIA_TF32_OVERRIDE");
    if (v && std::string(v) != "0")
        throw UsageError("NVIDIA_TF32_OVERRIDE=" + std::string(v) +
                         " is set: it overrides the math libraries' TF32 choice, so cuBLAS might not be plain FP32. Unset it (or set 0).");
}

Result measure(Problem& p, const KernelInfo& k, const Options& opt, double cublas_ms) {
    const Size s = p.size();
    Result r;
    r.kernel = k.number;
    r.name = k.name;
    r.M = s.M, r.N = s.N, r.K = s.K;
    r.status = "UNCHECKED";
    p.run_once(k);
    if (opt.check) {
        const CheckResult c = p.verify();
        r.rel_err = c.rel_err;
        r.bound = normwise_bound(s.K);
        if (k.number != 0) r.max_abs_diff_cublas = c.max_abs_diff_base;
        r.nonfinite = c.stats.nonfinite;
        r.componentwise_violations = c.stats.violations;
        r.status = c.pass ? "PASS" : "FAIL";
    }
    if (k.number == 0) p.keep_as_baseline();
    const Timing t = p.time(k, opt.warmup, opt.reps, opt.hot_l2);
    r.median_ms = t.median_ms;
    r.min_ms = t.min_ms;
    r.tflops = 2.0 * s.M * double(s.N) * s.K / (t.median_ms * 1e-3) / 1e12;
    r.pct_cublas = k.number == 0 ? 100.0 : 100.0 * cublas_ms / t.median_ms;
    return r;
}

int run(int argc, char** argv) {
    Options opt;
    if (!parse_options(argc, argv, opt)) return 0;
    if (opt.list) {
        std::fputs(kernel_list().c_str(), stdout);
        return 0;
    }
    const auto kernels = select_kernels(opt.kernels);
    if (opt.sizes.empty()) opt.sizes.push_back({4096, 4096, 4096});
    refuse_tf32_override();
    const KernelInfo* cublas = find_kernel("0");
    if (!cublas) throw std::logic_error("cuBLAS (kernel 0) is not registered");

    Report report;
    report.generated_utc = utc_now();
    report.command = command_line(argc, argv);
    report.device = query_device(opt.device);
    report.settings = {opt.alpha, opt.beta, opt.warmup, opt.reps, opt.seed, opt.hot_l2 ? "hot" : "flushed", opt.check};
    std::printf("%s", device_header(report.device).c_str());
    std::printf("alpha %g, beta %g, %d warm-up + %d timed launches (median), L2 %s, %s\n", opt.alpha, opt.beta,
                opt.warmup, opt.reps, opt.hot_l2 ? "hot (back-to-back)" : "flushed before each launch",
                opt.check ? "checked against float64" : "NOT checked (--no-check)");

    for (const Size& s : opt.sizes) Problem::ensure_fits(s, opt.check);  // all sizes, before any work

    bool all_pass = true;
    for (const Size& s : opt.sizes) {
        Problem problem(s, opt.alpha, opt.beta, opt.seed, opt.check);
        std::printf("\nM=%d N=%d K=%d  (pass: no NaN/Inf, componentwise within gamma_{K+2}, rel err <= %.2e)\n%s",
                    s.M, s.N, s.K, normwise_bound(s.K), table_header().c_str());
        const Result base = measure(problem, *cublas, opt, 0);
        std::printf("%s", table_row(base).c_str());
        std::fflush(stdout);
        report.results.push_back(base);
        all_pass &= base.status != "FAIL";
        for (const KernelInfo* k : kernels) {
            Result r = measure(problem, *k, opt, base.median_ms);
            r.cublas_rel_err = base.rel_err;
            std::printf("%s", table_row(r).c_str());
            std::fflush(stdout);
            report.results.push_back(r);
            all_pass &= r.status != "FAIL";
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
    try {
        return run(argc, argv);
    } catch (const UsageError& e) {
        std::fprintf(stderr, "sgemm_runner: %s\n", e.what());
        return kExitUsage;
    } catch (const DoesNotFitError& e) {
        std::fprintf(stderr, "sgemm_runner: %s\n", e.what());
        return kExitUsage;
    } catch (const NoDeviceError& e) {
        std::fprintf(stderr, "sgemm_runner: %s\n", e.what());
        return kExitRuntime;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "sgemm_runner: error: %s\n", e.what());
        return kExitRuntime;
    }
}
