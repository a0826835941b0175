// Results of a run: the device, the settings and one row per (kernel, size);
// printed as a table and written as JSON (docs/json-format.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

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
    friend bool operator==(const DeviceInfo&, const DeviceInfo&) = default;
};

struct Settings {
    double alpha = 1, beta = 0;
    int warmup = 0, reps = 0;
    std::uint64_t seed = 0;
    std::string l2 = "flushed";  // or "hot"
    bool check = true;
    friend bool operator==(const Settings&, const Settings&) = default;
};

struct Result {
    int kernel = 0;
    std::string name;
    int M = 0, N = 0, K = 0;
    double median_ms = 0, min_ms = 0, tflops = 0, pct_cublas = 0;
    std::optional<double> rel_err, bound, cublas_rel_err, max_abs_diff_cublas;  // null when unchecked / non-finite
    std::uint64_t nonfinite = 0, componentwise_violations = 0;
    std::string status;  // PASS, FAIL, UNCHECKED
    friend bool operator==(const Result&, const Result&) = default;
};

struct Report {
    std::string schema = "sgemm-steps/1";
    std::string generated_utc;
    std::string command;
    DeviceInfo device;
    Settings settings;
    std::vector<Result> results;
    friend bool operator==(const Report&, const Report&) = default;
};

nlohmann::json to_json(const Report& r);
Report report_from_json(const nlohmann::json& j);  // throws nlohmann::json::exception on a malformed file

std::string device_header(const DeviceInfo& d);
std::string table_header();
std::string table_row(const Result& r);

}  // namespace sgemm
