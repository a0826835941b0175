// sgemm_ceilings: the device's own speed limits, measured, for docs/overview.md.
//
//   (a) the FFMA limit: a kernel that does nothing but independent FFMAs, enough warps for every SM;
//       next to it the theoretical rate 2 FLOP x FP32 lanes per SM x SMs x SM clock, with the clock
//       from cudaDevAttrClockRate, which is the MAXIMUM (boost) clock, not the clock the run got;
//   (b) device-to-device copy bandwidth: the copy kernel of copy_bandwidth.cu (the one the runner's
//       roofline measures with) on >= 2 GiB, bytes read + bytes written;
//   (c) cuBLAS SGEMM at 8192^3 with CUBLAS_DEFAULT_MATH (FP32 FFMA) and CUBLAS_TF32_TENSOR_OP_MATH, on
//       inputs filled as the runner fills its problems (--init uniform);
//   (d) the device block of sgemm_runner (name, SMs, clocks, driver, CUDA, cuBLAS).
// Every time is a median over timed repetitions after warm-up, each repetition timed by its own pair
// of CUDA events (event_timing.h, as the runner times). Prints a table; --json FILE writes the same
// numbers (schema sgemm-steps-ceilings/1). Exit status (cli.h): 0 success, 2 usage error (before any GPU
// work), 3 no usable GPU or a CUDA/cuBLAS error.
//
// SASS of ffma_limit (sm_90, nvcc 13.0, read with `cuobjdump -sass build/runner/sgemm_ceilings`, function
// ..ffma_limitEiffPf): the loop is 259 instructions, 256 FFMA (8 chains x 32) then UIADD3 + ISETP.LE +
// BRA for the trip counter, that is 98.8 % FFMA. No load, no store and no other arithmetic inside the
// loop: the kernel arguments are read (LDC/ULDC) before it, the one STG comes after it.

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <nlohmann/json.hpp>

#include "cli.h"
#include "common/check.h"
#include "common/gpu_rates.h"
#include "copy_bandwidth.h"
#include "device_buffer.h"
#include "device_info.h"
#include "event_timing.h"
#include "problem.h"
#include "provenance.h"
#include "report.h"

namespace {

using sgemm::check;
using sgemm::DeviceBuffer;
using sgemm::kExitRuntime;
using sgemm::kExitUsage;
using sgemm::portable_command_line;
using sgemm::summarize;
using sgemm::time_ms;
using sgemm::Timing;
using sgemm::utc_now;
using json = nlohmann::json;

// ---- (a) the FFMA kernel ----------------------------------------------------------------------
// kChains independent accumulators per thread: an FFMA's result is needed again only kChains FFMAs
// later, so with a few warps per scheduler the FMA pipe never waits on a dependency. The chain
// a = a * x + y with 0 < x < 1 converges, so no value overflows or goes denormal.
constexpr int kChains = 8;
constexpr int kUnroll = 32;           // FFMAs per chain per loop trip: 256 FFMA against 3 loop instructions
constexpr int kFfmaThreads = 256;     // threads per block
constexpr int kFfmaBlocksPerSm = 8;   // 8 x 256 = 2048 threads = the SM's 64 warps (sm_80 / sm_90)
constexpr std::uint64_t kSeed = 1;    // of the cuBLAS operands (fill_spec derives A's and B's from it)

__global__ void __launch_bounds__(kFfmaThreads) ffma_limit(int trips, float x, float y, float* out) {
    float acc[kChains];
#pragma unroll
    for (int c = 0; c < kChains; ++c) acc[c] = static_cast<float>(threadIdx.x + c);
    for (int t = 0; t < trips; ++t) {
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
#pragma unroll
            for (int c = 0; c < kChains; ++c) acc[c] = fmaf(acc[c], x, y);
        }
    }
    float sum = 0.0f;
#pragma unroll
    for (int c = 0; c < kChains; ++c) sum += acc[c];
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;  // keeps the chains alive
}

struct Options {
    int device = 0, warmup = 3, reps = 10, gemm_size = 8192, ffma_trips = 8192;
    double copy_gib = 2.0;
    std::string json_path;
};

}  // namespace

int main(int argc, char** argv) {
    Options o;
    CLI::App app{
        "sgemm_ceilings: the device's FFMA rate, copy bandwidth and cuBLAS SGEMM (FP32, TF32), "
        "measured with CUDA events (median after warm-up).\n"
        "Exit status: 0 success, 2 usage error, 3 no usable GPU or a CUDA/cuBLAS error."};
    app.add_option("--json", o.json_path, "also write the results as JSON to FILE")->type_name("FILE");
    app.add_option("--device", o.device, "CUDA device index")->capture_default_str()->check(CLI::Range(0, 64));
    app.add_option("--warmup", o.warmup, "untimed launches before timing")
        ->capture_default_str()
        ->check(CLI::Range(0, 1000));
    app.add_option("--reps", o.reps, "timed repetitions (median reported)")
        ->capture_default_str()
        ->check(CLI::Range(1, 10000));
    app.add_option("--gemm-size", o.gemm_size, "M = N = K of the cuBLAS runs")
        ->capture_default_str()
        ->check(CLI::Range(256, 16384));
    app.add_option("--copy-gib", o.copy_gib, "bytes per device-to-device copy, GiB (at least 2)")
        ->capture_default_str()
        ->check(CLI::Range(2.0, 32.0));
    app.add_option("--ffma-trips", o.ffma_trips, "loop trips of the FFMA kernel (256 FFMA per thread each)")
        ->capture_default_str()
        ->check(CLI::Range(1, 1 << 20));
    try {
        app.parse(argc, argv);
        if (!o.json_path.empty()) sgemm::ensure_writable(o.json_path);  // as the runner: before any GPU work
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? 0 : kExitUsage;
    } catch (const sgemm::UsageError& e) {
        std::fprintf(stderr, "sgemm_ceilings: %s\n", e.what());
        return kExitUsage;
    }

    if (sgemm::usable_device_count() == 0) {
        std::fprintf(stderr,
                     "sgemm_ceilings: no CUDA device available: the ceilings are measured on an NVIDIA "
                     "GPU; run this on the machine with the GPU\n");
        return kExitRuntime;
    }

    try {
        sgemm::Report rep;  // used for its device and build blocks only, serialised as sgemm_runner does
        rep.device = sgemm::query_device(o.device);
        rep.build = sgemm::build_info();
        const json base = sgemm::to_json(rep);
        std::printf("%s\n", sgemm::device_header(rep.device).c_str());

        // The theoretical rate at the max clock is the device block's (empty where the lanes are unknown).
        const int sms = rep.device.sm_count, clock_mhz = rep.device.sm_clock_max_mhz;
        const int lanes = sgemm::fp32_lanes_per_sm(sgemm::compute_capability(o.device));
        const std::optional<double> theory_tflops = rep.device.ffma_peak_tflops;

        // (a) FFMA
        const int blocks = sms * kFfmaBlocksPerSm;
        const DeviceBuffer<float> out(static_cast<size_t>(blocks) * kFfmaThreads);
        const sgemm::Clocks ffma_before = sgemm::current_clocks(o.device);
        const Timing ffma = summarize(time_ms(o.warmup, o.reps, [&] {
            sgemm::launch_checked(ffma_limit, dim3(blocks), dim3(kFfmaThreads), 0, nullptr, o.ffma_trips, 0.999f,
                                  0.001f, out.get());
        }));
        const sgemm::Clocks ffma_after = sgemm::current_clocks(o.device);
        const double ffma_per_thread = static_cast<double>(o.ffma_trips) * kUnroll * kChains;
        const double ffma_flop = 2.0 * ffma_per_thread * blocks * kFfmaThreads;
        const double ffma_tflops = ffma_flop / (ffma.median_ms * 1e-3) / 1e12;
        const std::optional<double> pct_of_theory =
            theory_tflops ? std::optional(100.0 * ffma_tflops / *theory_tflops) : std::nullopt;

        // (b) device-to-device copy, by the same function as the runner's roofline
        const sgemm::CopyBandwidth copy =
            sgemm::measure_copy_bandwidth(static_cast<size_t>(o.copy_gib * (1ull << 30)), o.warmup, o.reps);

        // (c) cuBLAS at gemm_size^3 (column-major C = A B; the layout does not change the work)
        const int n = o.gemm_size;
        const size_t elems = static_cast<size_t>(n) * n;
        const DeviceBuffer<float> a(elems), b(elems), c(elems);
        for (const auto& [buffer, which] : {std::pair{&a, sgemm::Operand::kA}, std::pair{&b, sgemm::Operand::kB}})
            sgemm::fill_buffer(buffer->get(), elems,
                               sgemm::fill_spec(sgemm::Distribution::kUniform, which, n, n, n, n, 0, kSeed), nullptr);
        check(cudaMemset(c.get(), 0, c.bytes()));
        cublasHandle_t handle;
        check(cublasCreate(&handle));
        json gemm_rows = json::array();
        std::vector<std::pair<std::string, double>> gemm_print;
        for (const auto& [mode, mode_name] : {std::pair{CUBLAS_DEFAULT_MATH, "CUBLAS_DEFAULT_MATH"},
                                              std::pair{CUBLAS_TF32_TENSOR_OP_MATH, "CUBLAS_TF32_TENSOR_OP_MATH"}}) {
            check(cublasSetMathMode(handle, mode));
            const float alpha = 1.0f, beta = 0.0f;
            const Timing t = summarize(time_ms(o.warmup, o.reps, [&] {
                check(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, a.get(), n, b.get(), n, &beta,
                                  c.get(), n));
            }));
            const double tflops = 2.0 * n * n * static_cast<double>(n) / (t.median_ms * 1e-3) / 1e12;
            gemm_rows.push_back({{"math_mode", mode_name},
                                 {"M", n},
                                 {"N", n},
                                 {"K", n},
                                 {"median_ms", t.median_ms},
                                 {"min_ms", t.min_ms},
                                 {"tflops", tflops}});
            gemm_print.emplace_back(mode_name, tflops);
        }
        check(cublasDestroy(handle));

        // ---- table
        std::printf("\n%-44s %12s\n", "ceiling", "value");
        std::printf("%-44s %12.2f TFLOP/s  (median %.4f ms, %d blocks x %d threads, %d chains)\n",
                    "FFMA limit, measured", ffma_tflops, ffma.median_ms, blocks, kFfmaThreads, kChains);
        if (theory_tflops)
            std::printf("%-44s %12.2f TFLOP/s  (2 x %d lanes x %d SMs x %d MHz, the MAX clock; measured = %.1f %%)\n",
                        "FFMA limit, theoretical at max clock", *theory_tflops, lanes, sms, clock_mhz, *pct_of_theory);
        std::printf("%-44s %12.1f GB/s     (%.2f GiB per copy, read + written, median %.4f ms)\n",
                    "device-to-device copy", copy.gb_per_s, copy.bytes / double(1ull << 30), copy.median_ms);
        for (const auto& [name, tf] : gemm_print)
            std::printf("%-44s %12.2f TFLOP/s  (%d^3)\n", ("cuBLAS SGEMM, " + name).c_str(), tf, n);
        if (ffma_before.sm_mhz || ffma_after.sm_mhz)
            std::printf("SM clock around the FFMA runs (NVML): %s -> %s MHz\n",
                        ffma_before.sm_mhz ? std::to_string(*ffma_before.sm_mhz).c_str() : "?",
                        ffma_after.sm_mhz ? std::to_string(*ffma_after.sm_mhz).c_str() : "?");

        if (!o.json_path.empty()) {
            json j = {
                {"schema", "sgemm-steps-ceilings/1"},
                {"generated_utc", utc_now()},
                {"command", portable_command_line(argc, argv)},
                {"build", base.at("build")},
                {"device", base.at("device")},
                {"settings", {{"warmup", o.warmup}, {"reps", o.reps}, {"timing", "CUDA events, median of reps"}}},
                {"ffma",
                 {{"kernel", "ffma_limit"},
                  {"blocks", blocks},
                  {"threads_per_block", kFfmaThreads},
                  {"chains_per_thread", kChains},
                  {"ffma_per_thread", ffma_per_thread},
                  {"flop", ffma_flop},
                  {"flop_per_ffma", 2},
                  {"median_ms", ffma.median_ms},
                  {"min_ms", ffma.min_ms},
                  {"tflops", ffma_tflops},
                  {"fp32_lanes_per_sm", lanes},
                  {"sm_count", sms},
                  {"clock_mhz", static_cast<double>(clock_mhz)},
                  {"clock_source", "cudaDevAttrClockRate (the maximum SM clock)"},
                  {"theoretical_tflops", theory_tflops},
                  {"pct_of_theoretical", pct_of_theory},
                  {"sm_clock_before_mhz", ffma_before.sm_mhz},
                  {"sm_clock_after_mhz", ffma_after.sm_mhz}}},
                {"copy",
                 {{"method", sgemm::copy_method(o.warmup, o.reps)},
                  {"bytes_per_copy", copy.bytes},
                  {"bytes_counted", 2 * copy.bytes},
                  {"counted", "bytes read + bytes written"},
                  {"median_ms", copy.median_ms},
                  {"min_ms", copy.min_ms},
                  {"gb_per_s", copy.gb_per_s}}},
                {"cublas", gemm_rows},
            };
            std::ofstream f(o.json_path);
            f << j.dump(2) << "\n";
            if (!f) {
                std::fprintf(stderr, "sgemm_ceilings: cannot write %s\n", o.json_path.c_str());
                return kExitRuntime;
            }
        }
        return 0;
    } catch (const std::exception& e) {  // NoDeviceError, CudaError, ...
        std::fprintf(stderr, "sgemm_ceilings: %s\n", e.what());
        return kExitRuntime;
    }
}
