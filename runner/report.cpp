#include "report.h"

#include <cmath>
#include <cstdio>

namespace sgemm {

namespace {

template <typename T>
nlohmann::json opt(const std::optional<T>& v) {
    if (!v) return nullptr;
    if constexpr (std::is_floating_point_v<T>)
        if (!std::isfinite(*v)) return nullptr;
    return *v;
}

template <typename T>
std::optional<T> get_opt(const nlohmann::json& j, const char* key) {
    if (!j.contains(key) || j.at(key).is_null()) return std::nullopt;
    return j.at(key).get<T>();
}

}  // namespace

nlohmann::json to_json(const Report& r) {
    const auto& d = r.device;
    nlohmann::json device = {{"index", d.index},
                             {"name", d.name},
                             {"compute_capability", d.compute_capability},
                             {"sm_count", d.sm_count},
                             {"sm_clock_max_mhz", d.sm_clock_max_mhz},
                             {"mem_clock_max_mhz", d.mem_clock_max_mhz},
                             {"sm_clock_now_mhz", opt(d.sm_clock_now_mhz)},
                             {"mem_clock_now_mhz", opt(d.mem_clock_now_mhz)},
                             {"mem_bus_bits", d.mem_bus_bits},
                             {"l2_bytes", d.l2_bytes},
                             {"global_mem_bytes", d.global_mem_bytes},
                             {"driver_version", d.driver_version},
                             {"cuda_driver", d.cuda_driver},
                             {"cuda_runtime", d.cuda_runtime},
                             {"cublas", d.cublas}};
    const auto& s = r.settings;
    nlohmann::json settings = {{"alpha", s.alpha}, {"beta", s.beta}, {"warmup", s.warmup}, {"reps", s.reps},
                               {"seed", s.seed},   {"l2", s.l2},     {"check", s.check}};
    nlohmann::json results = nlohmann::json::array();
    for (const auto& x : r.results)
        results.push_back({{"kernel", x.kernel},
                           {"name", x.name},
                           {"M", x.M},
                           {"N", x.N},
                           {"K", x.K},
                           {"median_ms", x.median_ms},
                           {"min_ms", x.min_ms},
                           {"tflops", x.tflops},
                           {"pct_cublas", x.pct_cublas},
                           {"rel_err", opt(x.rel_err)},
                           {"bound", opt(x.bound)},
                           {"cublas_rel_err", opt(x.cublas_rel_err)},
                           {"max_abs_diff_cublas", opt(x.max_abs_diff_cublas)},
                           {"nonfinite", x.nonfinite},
                           {"componentwise_violations", x.componentwise_violations},
                           {"status", x.status}});
    return {{"schema", r.schema}, {"generated_utc", r.generated_utc}, {"command", r.command},
            {"device", device},   {"settings", settings},             {"results", results}};
}

Report report_from_json(const nlohmann::json& j) {
    Report r;
    r.schema = j.at("schema").get<std::string>();
    r.generated_utc = j.at("generated_utc").get<std::string>();
    r.command = j.value("command", "");
    const auto& d = j.at("device");
    r.device = {d.at("index").get<int>(),
                d.at("name").get<std::string>(),
                d.at("compute_capability").get<std::string>(),
                d.at("sm_count").get<int>(),
                d.at("sm_clock_max_mhz").get<int>(),
                d.at("mem_clock_max_mhz").get<int>(),
                get_opt<int>(d, "sm_clock_now_mhz"),
                get_opt<int>(d, "mem_clock_now_mhz"),
                d.at("mem_bus_bits").get<int>(),
                d.at("l2_bytes").get<std::int64_t>(),
                d.at("global_mem_bytes").get<std::int64_t>(),
                d.at("driver_version").get<std::string>(),
                d.at("cuda_driver").get<std::string>(),
                d.at("cuda_runtime").get<std::string>(),
                d.at("cublas").get<std::string>()};
    const auto& s = j.at("settings");
    r.settings = {s.at("alpha").get<double>(), s.at("beta").get<double>(),       s.at("warmup").get<int>(),
                  s.at("reps").get<int>(),     s.at("seed").get<std::uint64_t>(), s.at("l2").get<std::string>(),
                  s.at("check").get<bool>()};
    for (const auto& x : j.at("results")) {
        Result res;
        res.kernel = x.at("kernel").get<int>();
        res.name = x.at("name").get<std::string>();
        res.M = x.at("M").get<int>();
        res.N = x.at("N").get<int>();
        res.K = x.at("K").get<int>();
        res.median_ms = x.at("median_ms").get<double>();
        res.min_ms = x.at("min_ms").get<double>();
        res.tflops = x.at("tflops").get<double>();
        res.pct_cublas = x.at("pct_cublas").get<double>();
        res.rel_err = get_opt<double>(x, "rel_err");
        res.bound = get_opt<double>(x, "bound");
        res.cublas_rel_err = get_opt<double>(x, "cublas_rel_err");
        res.max_abs_diff_cublas = get_opt<double>(x, "max_abs_diff_cublas");
        res.nonfinite = x.at("nonfinite").get<std::uint64_t>();
        res.componentwise_violations = x.at("componentwise_violations").get<std::uint64_t>();
        res.status = x.at("status").get<std::string>();
        r.results.push_back(std::move(res));
    }
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

std::string table_header() {
    char buf[256];
    std::snprintf(buf, sizeof buf, "%4s %-28s %10s %9s %9s %10s %10s %10s %10s  %s\n", "#", "kernel", "median ms",
                  "TFLOP/s", "% cuBLAS", "rel err", "bound", "cuBLAS err", "max|d cuB|", "check");
    return buf;
}

std::string table_row(const Result& r) {
    auto num = [](const std::optional<double>& v) {
        char b[32];
        if (v && std::isfinite(*v))
            std::snprintf(b, sizeof b, "%.2e", *v);
        else
            std::snprintf(b, sizeof b, "%s", v ? "nan" : "-");
        return std::string(b);
    };
    char buf[512];
    std::snprintf(buf, sizeof buf, "%4d %-28s %10.4f %9.2f %8.1f%% %10s %10s %10s %10s  %s", r.kernel, r.name.c_str(),
                  r.median_ms, r.tflops, r.pct_cublas, num(r.rel_err).c_str(), num(r.bound).c_str(),
                  num(r.cublas_rel_err).c_str(), num(r.max_abs_diff_cublas).c_str(), r.status.c_str());
    std::string row = buf;
    if (r.nonfinite || r.componentwise_violations)
        row += " (" + std::to_string(r.nonfinite) + " NaN/Inf, " + std::to_string(r.componentwise_violations) +
               " outside the componentwise bound)";
    return row + "\n";
}

}  // namespace sgemm
