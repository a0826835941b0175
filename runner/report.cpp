#include "report.h"

#include <cmath>
#include <cstdio>

#include "common/registry.h"  // kTuningFrom

namespace sgemm {

namespace {
// A key added after files were committed: absent reads as empty, like null.
template <typename T>
void get_optional(const nlohmann::json& j, const char* key, std::optional<T>& field) {
    if (j.contains(key)) j.at(key).get_to(field);
}
}  // namespace

// Every key is required when reading (a malformed file throws), except the fields that
// schema sgemm-steps/2, --init, the roofline, --layout, --energy and the kernels' step and part added,
// which default (older files stay readable).
// The device block's theoretical rates are such fields: Report's to_json and report_from_json add them.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(DeviceInfo, index, name, compute_capability, sm_count, sm_clock_max_mhz,
                                   mem_clock_max_mhz, sm_clock_now_mhz, mem_clock_now_mhz, mem_bus_bits, l2_bytes,
                                   global_mem_bytes, driver_version, cuda_driver, cuda_runtime, cublas)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Settings, alpha, beta, warmup, reps, seed, l2, check, ld_pad, offset,
                                                init, layouts, energy_window_s)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(BuildInfo, git_commit, git_dirty, build_type, cuda_architectures, cuda_compiler,
                                   cxx_compiler, tuning)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Roofline, dram_gbs_measured, copy_bytes, method, ffma_peak_tflops, fp32_lanes_per_sm)

void to_json(nlohmann::json& j, const Result& r) {
    j = {{"kernel", r.kernel},
         {"name", r.name},
         {"step", r.step},
         {"part", r.part},
         {"M", r.M},
         {"N", r.N},
         {"K", r.K},
         {"median_ms", r.median_ms},
         {"min_ms", r.min_ms},
         {"tflops", r.tflops},
         {"pct_cublas", r.pct_cublas},
         {"rel_err", r.rel_err},
         {"bound", r.bound},
         {"cublas_rel_err", r.cublas_rel_err},
         {"max_abs_diff_cublas", r.max_abs_diff_cublas},
         {"nonfinite", r.nonfinite},
         {"componentwise_violations", r.componentwise_violations},
         {"outside_writes", r.outside_writes},
         {"status", r.status},
         {"config", r.config},
         {"precision", r.precision},
         {"not_run_reason", r.not_run_reason},
         {"workspace_bytes", r.workspace_bytes},
         {"sm_clock_before_mhz", r.sm_clock_before_mhz},
         {"sm_clock_after_mhz", r.sm_clock_after_mhz},
         {"mem_clock_before_mhz", r.mem_clock_before_mhz},
         {"mem_clock_after_mhz", r.mem_clock_after_mhz},
         {"tune_candidate", r.tune_candidate},
         {"picked", r.picked},
         {"init", r.init},
         {"missed_nonfinite", r.missed_nonfinite},
         {"inexact", r.inexact},
         {"roof_ms", r.roof_ms},
         {"pct_roof", r.pct_roof},
         {"roof_bound", r.roof_bound},
         {"layout", r.layout},
         {"pct_tuned", r.pct_tuned},
         {"energy_j", r.energy_j},
         {"gflop_per_j", r.gflop_per_j},
         {"power_w", r.power_w},
         {"power_max_w", r.power_max_w},
         {"sm_clock_mhz", r.sm_clock_mhz},
         {"energy_window_s", r.energy_window_s},
         {"energy_gemms", r.energy_gemms}};
}

void from_json(const nlohmann::json& j, Result& r) {
    // The measured fields are required; the descriptive ones added later default.
    j.at("kernel").get_to(r.kernel);
    j.at("name").get_to(r.name);
    j.at("M").get_to(r.M);
    j.at("N").get_to(r.N);
    j.at("K").get_to(r.K);
    j.at("median_ms").get_to(r.median_ms);
    j.at("min_ms").get_to(r.min_ms);
    j.at("tflops").get_to(r.tflops);
    j.at("pct_cublas").get_to(r.pct_cublas);
    j.at("rel_err").get_to(r.rel_err);
    j.at("bound").get_to(r.bound);
    j.at("cublas_rel_err").get_to(r.cublas_rel_err);
    j.at("max_abs_diff_cublas").get_to(r.max_abs_diff_cublas);
    j.at("nonfinite").get_to(r.nonfinite);
    j.at("componentwise_violations").get_to(r.componentwise_violations);
    j.at("status").get_to(r.status);
    get_optional(j, "step", r.step);
    get_optional(j, "part", r.part);
    const Result defaults;
    r.outside_writes = j.value("outside_writes", defaults.outside_writes);
    r.config = j.value("config", defaults.config);
    r.precision = j.value("precision", defaults.precision);
    r.not_run_reason = j.value("not_run_reason", defaults.not_run_reason);
    r.workspace_bytes = j.value("workspace_bytes", defaults.workspace_bytes);
    for (auto [key, field] : {std::pair{"sm_clock_before_mhz", &r.sm_clock_before_mhz},
                              std::pair{"sm_clock_after_mhz", &r.sm_clock_after_mhz},
                              std::pair{"mem_clock_before_mhz", &r.mem_clock_before_mhz},
                              std::pair{"mem_clock_after_mhz", &r.mem_clock_after_mhz}})
        get_optional(j, key, *field);
    r.tune_candidate = j.value("tune_candidate", false);
    r.picked = j.value("picked", false);
    r.init = j.value("init", defaults.init);
    r.missed_nonfinite = j.value("missed_nonfinite", defaults.missed_nonfinite);
    r.inexact = j.value("inexact", defaults.inexact);
    get_optional(j, "roof_ms", r.roof_ms);
    get_optional(j, "pct_roof", r.pct_roof);
    get_optional(j, "roof_bound", r.roof_bound);
    r.layout = j.value("layout", defaults.layout);
    get_optional(j, "pct_tuned", r.pct_tuned);
    for (auto [key, field] :
         {std::pair{"energy_j", &r.energy_j}, std::pair{"gflop_per_j", &r.gflop_per_j},
          std::pair{"power_w", &r.power_w}, std::pair{"power_max_w", &r.power_max_w},
          std::pair{"sm_clock_mhz", &r.sm_clock_mhz}, std::pair{"energy_window_s", &r.energy_window_s}})
        get_optional(j, key, *field);
    get_optional(j, "energy_gemms", r.energy_gemms);
}

nlohmann::json to_json(const Report& r) {
    nlohmann::json device = r.device;
    device["ffma_peak_tflops"] = r.device.ffma_peak_tflops;
    device["dram_peak_gbs"] = r.device.dram_peak_gbs;
    // tuning_from and tuned_baseline: which kernel numbers are tuning variants and which is the tuned
    // baseline, for readers of this file alone (scripts/report).
    return {{"schema", r.schema},
            {"generated_utc", r.generated_utc},
            {"command", r.command},
            {"build", r.build},
            {"device", device},
            {"settings", r.settings},
            {"results", r.results},
            {"roofline", r.roofline},
            {"tuning_from", kTuningFrom},
            {"tuned_baseline", kTunedBaseline},
            {"energy_meter", r.energy_meter}};
}

Report report_from_json(const nlohmann::json& j) {
    Report r;
    j.at("schema").get_to(r.schema);
    j.at("generated_utc").get_to(r.generated_utc);
    r.command = j.value("command", "");
    if (j.contains("build")) j.at("build").get_to(r.build);  // schema sgemm-steps/1 had none
    const nlohmann::json& device = j.at("device");
    device.get_to(r.device);
    get_optional(device, "ffma_peak_tflops", r.device.ffma_peak_tflops);
    get_optional(device, "dram_peak_gbs", r.device.dram_peak_gbs);
    j.at("settings").get_to(r.settings);
    j.at("results").get_to(r.results);
    get_optional(j, "roofline", r.roofline);  // null with --no-roofline, absent in older files
    get_optional(j, "energy_meter", r.energy_meter);
    return r;
}

std::string device_header(const DeviceInfo& d) {
    char buf[1024];
    auto now = [](const std::optional<int>& v) { return v ? std::to_string(*v) + " MHz now" : std::string("now n/a"); };
    std::snprintf(buf, sizeof buf,
                  "Device %d: %s (sm_%s, %d SMs, L2 %.0f MB, %.1f GiB)\n"
                  "  clocks: SM max %d MHz (%s), memory max %d MHz (%s), %d-bit bus\n"
                  "  driver %s (CUDA %s), CUDA runtime %s, cuBLAS %s\n",
                  d.index, d.name.c_str(), d.compute_capability.c_str(), d.sm_count, d.l2_bytes / 1e6,
                  d.global_mem_bytes / 1073741824.0, d.sm_clock_max_mhz, now(d.sm_clock_now_mhz).c_str(),
                  d.mem_clock_max_mhz, now(d.mem_clock_now_mhz).c_str(), d.mem_bus_bits, d.driver_version.c_str(),
                  d.cuda_driver.c_str(), d.cuda_runtime.c_str(), d.cublas.c_str());
    return buf;
}

std::string roofline_header(const DeviceInfo& d, const std::optional<Roofline>& roofline) {
    if (!roofline) return "roofline: not measured (--no-roofline)\n";
    char ffma[160], dram[128];
    if (roofline->ffma_peak_tflops)
        std::snprintf(ffma, sizeof ffma, "FFMA %.1f TFLOP/s (%d lanes x %d SMs x %d MHz, max clock; theoretical)",
                      *roofline->ffma_peak_tflops, roofline->fp32_lanes_per_sm, d.sm_count, d.sm_clock_max_mhz);
    else
        std::snprintf(ffma, sizeof ffma, "FFMA peak unknown for compute capability %s (no roof)",
                      d.compute_capability.c_str());
    std::snprintf(dram, sizeof dram, "DRAM %.2f TB/s measured (copy kernel, read + written, %.2f GiB)",
                  roofline->dram_gbs_measured / 1e3, roofline->copy_bytes / 1073741824.0);
    return std::string("roofline: ") + ffma + ", " + dram + "\n";
}

namespace {
// The energy columns (--energy), before check: J/GEMM, GFLOP/J, W (mean power), SM MHz (mean SM clock).
constexpr const char* kEnergyHeader = " %9s %8s %5s %6s";

// One row's energy columns, lined up with kEnergyHeader: "-" on an N/A row, "n/a" for a figure the row has
// not (no NVML, no energy counter, a counter that did not advance).
std::string energy_columns(const Result& r) {
    auto cell = [&](int width, int decimals, bool general, const std::optional<double>& v) {
        char text[32];
        if (r.status != "N/A" && v && std::isfinite(*v))
            std::snprintf(text, sizeof text, general ? " %*.*g" : " %*.*f", width, decimals, *v);
        else
            std::snprintf(text, sizeof text, " %*s", width, r.status == "N/A" ? "-" : "n/a");
        return std::string(text);
    };
    return cell(9, 3, true, r.energy_j) + cell(8, 1, false, r.gflop_per_j) + cell(5, 0, false, r.power_w) +
        cell(6, 0, false, r.sm_clock_mhz);
}
}  // namespace

std::string table_header(bool tuned, bool energy) {
    char buf[256], energy_header[64] = "";
    if (energy) std::snprintf(energy_header, sizeof energy_header, kEnergyHeader, "J/GEMM", "GFLOP/J", "W", "SM MHz");
    std::snprintf(buf, sizeof buf, "%4s %-28s %10s %9s %9s%s %7s %10s %10s %10s %10s%s  %s\n", "#", "kernel",
                  "median ms", "TFLOP/s", "% cuBLAS", tuned ? "   % tuned" : "", "% roof", "rel err", "bound",
                  "cuBLAS err", "max|d cuB|", energy_header, "check");
    return buf;
}

std::string table_row(const Result& r, bool tuned, bool energy) {
    char buf[512];
    // " %8.1f%%" of pct_tuned, or " -" on its right edge: the column after % cuBLAS, where there is one.
    char tuned_column[16] = "";
    if (tuned) {
        if (r.pct_tuned && std::isfinite(*r.pct_tuned) && r.status != "N/A")
            std::snprintf(tuned_column, sizeof tuned_column, " %8.1f%%", *r.pct_tuned);
        else
            std::snprintf(tuned_column, sizeof tuned_column, " %9s", "-");
    }
    const std::string energy_column = energy ? energy_columns(r) : "";
    if (r.status == "N/A") {
        std::snprintf(buf, sizeof buf, "%4d %-28s %10s %9s %9s%s %7s %10s %10s %10s %10s%s  N/A (%s)\n", r.kernel,
                      r.name.c_str(), "-", "-", "-", tuned_column, "-", "-", "-", "-", "-", energy_column.c_str(),
                      r.not_run_reason.c_str());
        return buf;
    }
    auto num = [](const std::optional<double>& v) {
        char b[32];
        if (v && std::isfinite(*v))
            std::snprintf(b, sizeof b, "%.2e", *v);
        else
            std::snprintf(b, sizeof b, "%s", v ? "nan" : "-");
        return std::string(b);
    };
    char roof[16] = "-";
    if (r.pct_roof && std::isfinite(*r.pct_roof)) std::snprintf(roof, sizeof roof, "%.1f%%", *r.pct_roof);
    std::snprintf(buf, sizeof buf, "%4d %-28s %10.4f %9.2f %8.1f%%%s %7s %10s %10s %10s %10s%s  %s", r.kernel,
                  r.name.c_str(), r.median_ms, r.tflops, r.pct_cublas, tuned_column, roof, num(r.rel_err).c_str(),
                  num(r.bound).c_str(), num(r.cublas_rel_err).c_str(), num(r.max_abs_diff_cublas).c_str(),
                  energy_column.c_str(), r.status.c_str());
    std::string row = buf;
    if (r.nonfinite || r.missed_nonfinite || r.componentwise_violations || r.inexact)
        row += " (" + std::to_string(r.nonfinite) + " NaN/Inf where R is finite, " +
            std::to_string(r.missed_nonfinite) + " finite where R is NaN/Inf, " +
            std::to_string(r.componentwise_violations) + " outside the componentwise bound" +
            (r.inexact ? ", " + std::to_string(r.inexact) + " not exact" : std::string()) + ")";
    if (r.outside_writes) row += " (" + std::to_string(r.outside_writes) + " elements written outside the C view)";
    return row + "\n";
}

}  // namespace sgemm
