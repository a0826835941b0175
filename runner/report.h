// Results of a run: the device, the settings and one row per (kernel, size, distribution, layout);
// printed as a table and written as JSON (docs/json-format.md).
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

// std::optional as JSON: null when empty, and non-finite doubles (a NaN error of a result that holds
// NaN) written as null too, since JSON has no NaN. In the header: sgemm_ceilings writes its optional
// fields with it too.
namespace nlohmann {
template <typename T>
struct adl_serializer<std::optional<T>> {
    static void to_json(json& j, const std::optional<T>& v) {
        if constexpr (std::is_floating_point_v<T>) {
            if (v && std::isfinite(*v))
                j = *v;
            else
                j = nullptr;
        } else {
            if (v)
                j = *v;
            else
                j = nullptr;
        }
    }
    static void from_json(const json& j, std::optional<T>& v) {
        if (j.is_null())
            v.reset();
        else
            v = j.get<T>();
    }
};
}  // namespace nlohmann

namespace sgemm {

struct DeviceInfo {
    int index = 0;
    std::string name;
    std::string compute_capability;
    int sm_count = 0;
    int sm_clock_max_mhz = 0;
    int mem_clock_max_mhz = 0;
    std::optional<int> sm_clock_now_mhz;   // NVML, when available
    std::optional<int> mem_clock_now_mhz;  // NVML, when available
    int mem_bus_bits = 0;
    std::int64_t l2_bytes = 0;
    std::int64_t global_mem_bytes = 0;
    std::string driver_version;  // e.g. "580.159.04" (NVML), or "unknown"
    std::string cuda_driver;     // CUDA version the driver supports, e.g. "13.0"
    std::string cuda_runtime;
    std::string cublas;
    // Theoretical rates from clocks and bus width (common/gpu_rates.h); empty where unknown (an
    // unknown compute capability, a bus width of 0) and in files from before the roofline.
    std::optional<double> ffma_peak_tflops;  // 2 x FP32 lanes x SMs x max SM clock
    std::optional<double> dram_peak_gbs;     // 2 x max memory clock x bus width / 8, 1e9 bytes/s
    friend bool operator==(const DeviceInfo&, const DeviceInfo&) = default;
};

struct Settings {
    double alpha = 1, beta = 0;
    int warmup = 0, reps = 0;
    std::uint64_t seed = 0;
    std::string l2 = "flushed";  // or "hot"
    bool check = true;
    int ld_pad = 0;  // lda = K + ld_pad, ldb = ldc = N + ld_pad (M, K for A, B transposed)
    int offset = 0;  // floats between an aligned allocation and A, B, C
    std::vector<std::string> init{"uniform"};  // the input distributions (--init), in the order run
    std::vector<std::string> layouts{"NN"};    // the layouts (--layout), "NN", "NT", "TN", "TT", in the order run
    std::optional<double> energy_window_s;     // the least energy window (--energy, --sustained); empty: none
    friend bool operator==(const Settings&, const Settings&) = default;
};

// What built the binary (filled in at build time: runner/build_info.cpp.in).
struct BuildInfo {
    std::string git_commit = "unknown";
    bool git_dirty = false;
    std::string build_type;
    std::string cuda_architectures;
    std::string cuda_compiler;  // e.g. "NVIDIA 13.0.88"
    std::string cxx_compiler;   // e.g. "GNU 12.2.0"
    bool tuning = false;        // -DSGEMM_TUNING=ON
    friend bool operator==(const BuildInfo&, const BuildInfo&) = default;
};
const BuildInfo& build_info();

struct Result {
    int kernel = 0;  // the registry's number: unique per kernel (a sub-step's is sub_step_number's)
    std::string name;
    int M = 0, N = 0, K = 0;
    double median_ms = 0, min_ms = 0, tflops = 0, pct_cublas = 0;
    std::optional<double> rel_err, bound, cublas_rel_err, max_abs_diff_cublas;  // null when unchecked / non-finite
    std::uint64_t nonfinite = 0, componentwise_violations = 0;  // NaN/Inf where R is finite; outside the bound
    std::string status;  // PASS, FAIL, UNCHECKED, N/A
    std::uint64_t outside_writes = 0;  // elements of C's buffer outside the M x N view that changed
    std::string config;            // the kernel's describe() for this size
    std::string precision = "fp32";
    std::string not_run_reason;    // with N/A: why the kernel did not run (requirements, can_implement)
    std::uint64_t workspace_bytes = 0;
    std::optional<int> sm_clock_before_mhz, sm_clock_after_mhz;    // around the timed launches (NVML)
    std::optional<int> mem_clock_before_mhz, mem_clock_after_mhz;
    bool tune_candidate = false;   // a --tune row: one candidate configuration, not the kernel's own launch
    bool picked = false;           // with tune_candidate: the configuration the kernel's launch() picks
    std::string init = "uniform";  // the distribution of the inputs (--init)
    std::uint64_t missed_nonfinite = 0;  // finite elements where R is NaN/Inf
    std::uint64_t inexact = 0;           // elements that had to equal R exactly (integers) and did not
    // The shape's roof (roofline.h) at the run's rates; empty with --no-roofline or an unknown FFMA peak.
    // pct_roof = 100 roof_ms / median_ms, empty on N/A rows.
    std::optional<double> roof_ms, pct_roof;
    std::optional<std::string> roof_bound;  // "flop" or "dram"
    std::string layout = "NN";              // op(A) then op(B) (--layout): "NN", "NT", "TN" or "TT"
    // 100 x the tuned baseline's median / this median, where the tuned baseline ran in this row's table;
    // empty otherwise (--no-tuned-baseline, the baseline N/A there, an N/A row, files from before it).
    std::optional<double> pct_tuned;
    // The energy window after the timing (--energy, --sustained; energy.h): joules per GEMM, GFLOP per joule
    // (2·M·N·K / 1e9 / energy_j), mean power (the window's joules / seconds) and the largest power sample,
    // the mean SM clock, the window's length and launches. Empty without --energy, on N/A rows, and where
    // NVML or its energy counter is missing (energy_j, gflop_per_j and power_w also where the counter did
    // not advance).
    std::optional<double> energy_j, gflop_per_j, power_w, power_max_w, sm_clock_mhz, energy_window_s;
    std::optional<std::int64_t> energy_gemms;
    // The kernel's step and, for a sub-step, its letter ("a" for 9a; the label is 09a_name): the registry's
    // KernelInfo::step and KernelSpec::part. Empty in files from before they were recorded.
    std::optional<int> step;
    std::optional<std::string> part;
    friend bool operator==(const Result&, const Result&) = default;
};

// The rates every roof of a run is computed from: measured once per run, before any problem is allocated.
struct Roofline {
    double dram_gbs_measured = 0;  // copy kernel: bytes read + written / median time, 1e9 bytes/s
    std::uint64_t copy_bytes = 0;  // bytes copied per launch (each read once and written once)
    std::string method;            // how dram_gbs_measured was measured
    std::optional<double> ffma_peak_tflops;  // theoretical (the device block's), empty when unknown
    int fp32_lanes_per_sm = 0;               // what ffma_peak_tflops counts per SM and clock; 0: unknown
    friend bool operator==(const Roofline&, const Roofline&) = default;
};

struct Report {
    std::string schema = "sgemm-steps/2";
    std::string generated_utc;
    std::string command;
    BuildInfo build;
    DeviceInfo device;
    Settings settings;
    std::vector<Result> results;
    std::optional<Roofline> roofline;  // empty with --no-roofline
    // With --energy: what measured it ("NVML total-energy counter") or why nothing did ("n/a (...)").
    std::optional<std::string> energy_meter;
    friend bool operator==(const Report&, const Report&) = default;
};

nlohmann::json to_json(const Report& r);
Report report_from_json(const nlohmann::json& j);  // throws nlohmann::json::exception on a malformed file

std::string device_header(const DeviceInfo& d);
// "roofline: FFMA ... TFLOP/s (...), DRAM ... TB/s measured (...)", once per run.
std::string roofline_header(const DeviceInfo& d, const std::optional<Roofline>& roofline);
// The table of one size, distribution and layout; `tuned`: with the % tuned column (where the tuned
// baseline ran in that table); `energy`: with the energy columns before check (--energy).
std::string table_header(bool tuned = false, bool energy = false);
std::string table_row(const Result& r, bool tuned = false, bool energy = false);  // a PASS/FAIL/UNCHECKED or N/A row

}  // namespace sgemm
