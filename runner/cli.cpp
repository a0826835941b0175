#include "cli.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

namespace sgemm {

namespace {

int parse_dim(std::string_view part, std::string_view whole) {
    long long value = 0;
    const auto* end = part.data() + part.size();
    const auto [ptr, ec] = std::from_chars(part.data(), end, value);
    if (part.empty() || ec != std::errc() || ptr != end)
        throw UsageError("malformed size '" + std::string(whole) + "': expected M,N,K with positive integers");
    if (value <= 0) throw UsageError("size '" + std::string(whole) + "': every dimension must be at least 1");
    if (value > 2147483647LL) throw UsageError("size '" + std::string(whole) + "': dimensions must be below 2^31");
    return static_cast<int>(value);
}

std::vector<std::string> split(std::string_view text, char sep) {
    std::vector<std::string> parts;
    size_t start = 0;
    while (true) {
        const size_t pos = text.find(sep, start);
        parts.emplace_back(text.substr(start, pos - start));
        if (pos == std::string_view::npos) break;
        start = pos + 1;
    }
    return parts;
}

std::string shortest(double v) {  // 0.5, 3600
    char text[32];
    std::snprintf(text, sizeof text, "%g", v);
    return text;
}

}  // namespace

Size parse_size(std::string_view text) {
    std::string normalized(text);
    std::replace(normalized.begin(), normalized.end(), 'x', ',');
    const auto parts = split(normalized, ',');
    if (parts.size() != 3)
        throw UsageError("malformed size '" + std::string(text) + "': expected M,N,K (three numbers)");
    return {parse_dim(parts[0], text), parse_dim(parts[1], text), parse_dim(parts[2], text)};
}

double parse_sustained(std::string_view text) {
    double seconds = 0;
    const auto* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, seconds);
    // from_chars reads "nan" and "inf" as numbers: the range check turns them away.
    if (text.empty() || ec != std::errc() || ptr != end || !std::isfinite(seconds) || seconds <= 0 ||
        seconds > kMaxEnergyWindowS)
        throw UsageError("--sustained must be a number of seconds, more than 0 and at most " +
                         shortest(kMaxEnergyWindowS) + " (got '" + std::string(text) + "')");
    return seconds;
}

std::string kernel_list(const std::vector<std::string>& keys) {
    std::ostringstream out;
    for (const KernelInfo* k : resolve_kernels(keys)) {
        char line[96];
        std::snprintf(line, sizeof line, "%3d  %-28s ", k->spec.number, k->name.c_str());
        out << line << k->spec.idea;
        if (k->spec.precision != Precision::kFp32) out << " [" << to_string(k->spec.precision) << "]";
        const Requirements& r = k->spec.requirements;
        if (r.needs_sm90a)
            out << " [needs sm_90a]";
        else if (r.min_cc > 0)
            out << " [sm_" << r.min_cc << "+]";
        if (k->spec.any_layout) out << " [every layout]";
        if (k->is_sub_step()) out << " [sub-step " << k->step << k->spec.part << "]";  // its key, e.g. 9a
        out << '\n';
    }
    return out.str();
}

std::string kernel_list_json(const std::vector<std::string>& keys) {
    auto string_or_null = [](const std::string& s) { return s.empty() ? nlohmann::json() : nlohmann::json(s); };
    nlohmann::json kernels = nlohmann::json::array();
    for (const KernelInfo* k : resolve_kernels(keys)) {
        const KernelSpec& spec = k->spec;
        const std::string sass_functions = k->sass_functions();
        kernels.push_back(
            {{"number", spec.number},
             {"name", k->name},
             {"part", k->is_sub_step() ? nlohmann::json(std::string(1, spec.part)) : nlohmann::json()},
             {"label", k->label()},
             {"idea", spec.idea},
             {"requirements", {{"min_cc", spec.requirements.min_cc}, {"needs_sm90a", spec.requirements.needs_sm90a}}},
             {"precision", to_string(spec.precision)},
             {"tuning_variant", k->is_tuning_variant()},
             {"tunable", spec.candidates != nullptr},
             {"step", k->step},
             {"functions", string_or_null(k->functions())},
             {"launched_functions", k->launched_functions()},
             {"gemm_function", string_or_null(spec.gemm_function ? spec.gemm_function : "")},
             {"bench_cap", spec.bench_cap > 0 ? nlohmann::json(spec.bench_cap) : nlohmann::json()},
             {"any_layout", spec.any_layout},
             {"baseline", k->is_baseline()},
             {"sass",
              sass_functions.empty() ? nlohmann::json()
                                     : nlohmann::json{{"functions", sass_functions},
                                                      {"required", spec.sass.required},
                                                      {"absent", spec.sass.absent}}}});
    }
    return nlohmann::json{{"schema", "sgemm-steps-list/1"},
                          {"tuning_from", kTuningFrom},
                          {"tuned_baseline", kTunedBaseline},
                          {"kernels", kernels}}
               .dump(2) +
        "\n";
}

void ensure_writable(const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const bool existed = fs::exists(path, ec);
    if (existed && fs::is_directory(path, ec)) throw UsageError("--json " + path + ": is a directory");
    {
        std::ofstream probe(path, std::ios::app);
        if (!probe)
            throw UsageError("--json " + path +
                             ": cannot create this file (does its directory exist and is it "
                             "writable?)");
    }
    if (!existed) fs::remove(path, ec);
}

void check_leading_dimensions(const Size& s, int ld_pad, Ops layout) {
    // lda is K + P (M + P with A transposed), ldb N + P (K + P with B transposed), ldc N + P.
    const int widest = std::max({layout.a == Op::kN ? s.K : s.M, layout.b == Op::kN ? s.N : s.K, s.N});
    if (static_cast<long long>(widest) + ld_pad > INT_MAX)
        throw UsageError("--ld-pad " + std::to_string(ld_pad) + " with size " + std::to_string(s.M) + "," +
                         std::to_string(s.N) + "," + std::to_string(s.K) + " and layout " +
                         layout_name(layout.a, layout.b) +
                         ": leading dimensions (the row lengths M, N or K of A, B and C as stored, plus the pad) "
                         "must stay below 2^31");
}

std::vector<const KernelInfo*> resolve_kernels(const std::vector<std::string>& keys) {
    std::vector<const KernelInfo*> chosen;
    auto add = [&](const KernelInfo* k) {
        if (std::find(chosen.begin(), chosen.end(), k) == chosen.end()) chosen.push_back(k);
    };
    for (const auto& key : keys) {
        for (const auto& part : split(key, ',')) {
            if (part == "all") {
                for (const auto& k : registry()) add(&k);
            } else if (const KernelInfo* k = find_kernel(part)) {
                add(k);
            } else {
                throw UsageError("unknown kernel '" + part + "'. Valid kernels (number or name):\n" + kernel_list());
            }
        }
    }
    // Registry order, the ladder's (08, 09a, 09b, 09, 10): the pointers point into registry()'s vector.
    std::sort(chosen.begin(), chosen.end(), std::less<>());
    return chosen;
}

std::vector<const KernelInfo*> select_kernels(const std::vector<std::string>& keys) {
    std::vector<const KernelInfo*> chosen = resolve_kernels(keys);
    std::erase_if(chosen, [](const KernelInfo* k) { return k->is_baseline(); });
    return chosen;
}

bool times_tuned_baseline(const Options& options) {
    if (options.tuned_baseline) return true;
    for (const auto& key : options.kernels)
        for (const auto& part : split(key, ','))
            if (part != "all")
                if (const KernelInfo* k = find_kernel(part); k && k->spec.number == kTunedBaseline) return true;
    return false;
}

std::vector<Distribution> select_distributions(const std::vector<std::string>& keys) {
    std::vector<Distribution> chosen;
    auto add = [&](Distribution d) {
        if (std::find(chosen.begin(), chosen.end(), d) == chosen.end()) chosen.push_back(d);
    };
    for (const auto& key : keys) {
        for (const auto& part : split(key, ',')) {
            if (part == "all") {
                for (const DistributionInfo& d : kDistributions) add(d.id);
            } else if (const std::optional<Distribution> d = find_distribution(part)) {
                add(*d);
            } else {
                throw UsageError("unknown --init '" + part + "'. Valid distributions: " + distribution_names() +
                                 " (or all)");
            }
        }
    }
    return chosen;
}

std::vector<Ops> select_layouts(const std::vector<std::string>& keys) {
    static constexpr Ops kAll[] = {{Op::kN, Op::kN}, {Op::kN, Op::kT}, {Op::kT, Op::kN}, {Op::kT, Op::kT}};
    std::vector<Ops> chosen;
    auto add = [&](Ops l) {
        if (std::find(chosen.begin(), chosen.end(), l) == chosen.end()) chosen.push_back(l);
    };
    for (const auto& key : keys) {
        for (const auto& part : split(key, ',')) {
            const auto named =
                std::find_if(std::begin(kAll), std::end(kAll), [&](Ops l) { return layout_name(l.a, l.b) == part; });
            if (part == "all") {
                for (const Ops l : kAll) add(l);
            } else if (named != std::end(kAll)) {
                add(*named);
            } else {
                throw UsageError("unknown --layout '" + part +
                                 "'. Valid layouts: NN, NT, TN, TT (op(A) then op(B): N as stored, T transposed), "
                                 "or all");
            }
        }
    }
    return chosen;
}

bool parse_options(int argc, const char* const* argv, Options& out) {
    CLI::App app{
        "sgemm_runner: runs the sgemm-steps kernels (row-major C = alpha*op(A)*op(B) + beta*C, FP32), checks each\n"
        "against a float64 reference, and times it next to cuBLAS in the same run.\n"
        "Exit codes: 0 all checks passed, 1 a kernel failed its check, 2 bad usage, 3 CUDA/runtime error."};
    std::vector<std::string> sizes, inits, layouts;
    app.add_option("-k,--kernel", out.kernels,
                   "Kernels to run: a number (7), a sub-step (9a, 09a), a name (warptiling, 07_warptiling), a comma "
                   "list, or 'all'. "
                   "cuBLAS (0) always runs as the baseline, the tuned cuBLASLt baseline (" +
                       std::to_string(kTunedBaseline) + ") too unless --no-tuned-baseline")
        ->default_str("all");
    app.add_option("-s,--size", sizes, "Problem size M,N,K (repeatable; default 4096,4096,4096)");
    app.add_option("--alpha", out.alpha, "alpha in C = alpha*op(A)*op(B) + beta*C")->capture_default_str();
    app.add_option("--beta", out.beta, "beta; with 0, C is write-only and filled with NaN beforehand")
        ->capture_default_str();
    app.add_option("--warmup", out.warmup, "Untimed launches before timing (0 or more)")->capture_default_str();
    app.add_option("--reps", out.reps, "Timed launches (at least 1); the median and minimum are reported")
        ->capture_default_str();
    app.add_option("--seed", out.seed, "Seed of the random inputs (fresh for each size and matrix)")
        ->capture_default_str();
    std::string init_help =
        "Distribution of the inputs op(A), op(B), C0: a name, a comma list, or 'all' (repeatable; one table per "
        "size and distribution; docs/verification.md):";
    for (const DistributionInfo& d : kDistributions)
        init_help += "\n  " + std::string(d.name) + ": " + std::string(d.summary);
    app.add_option("--init", inits, init_help)->default_str("uniform");
    app.add_option("--layout", layouts,
                   "Layouts to run: NN, NT, TN, TT (op(A) then op(B); N: as stored, row-major, T: transposed, A "
                   "stored K x M or B stored N x K), a comma list, or 'all' (repeatable; one table per size, "
                   "distribution and layout; cuBLAS runs each as the baseline of its table, steps that compute "
                   "NN only show N/A)")
        ->default_str("NN");
    app.add_option("--json", out.json,
                   "Also write the results to this JSON file (docs/json-format.md); with --list, the registry as "
                   "JSON ('-' for standard output)");
    app.add_flag("--list", out.list,
                 "List the registered kernels, one per line: number, name, idea, precision; with --kernel, only "
                 "those it selects (cuBLAS where named)");
    app.add_option("--device", out.device, "CUDA device index")->capture_default_str();
    app.add_option("--ld-pad", out.ld_pad,
                   "Leading dimensions padded by P floats: lda = K + P (M + P with A transposed), ldb = N + P "
                   "(K + P with B transposed), ldc = N + P (strided views)")
        ->capture_default_str();
    app.add_option("--offset", out.offset,
                   "A, B and C start E floats after an aligned allocation (E = 1, 2, 3: unaligned views)")
        ->capture_default_str();
    app.add_flag("-v,--verbose", out.verbose, "Print the configuration each kernel runs (its describe() string)");
    app.add_flag("--tune", out.tune,
                 "For kernels that choose a configuration by shape: time every candidate configuration and show "
                 "the best next to the kernel's own pick");
    app.add_flag("!--no-check", out.check, "Skip the float64 reference and the correctness checks");
    app.add_flag("!--no-tuned-baseline", out.tuned_baseline,
                 "Skip the tuned baseline (cuBLASLt, the fastest of its heuristic's algorithms timed on each "
                 "problem) and the % tuned column, unless --kernel names it (" +
                     std::to_string(kTunedBaseline) + ", cublaslt; 'all' does not)");
    app.add_flag("!--no-roofline", out.roofline,
                 "Skip the DRAM bandwidth measurement at start-up: no roofline, the % roof column shows '-'");
    app.add_flag("--hot-l2", out.hot_l2,
                 "Time back-to-back launches with a warm L2 (default: the L2 is flushed before each timed launch)");
    app.add_flag("--energy", out.energy,
                 "Also measure energy per GEMM with NVML's total-energy counter: after each row's timing, launch it "
                 "back to back for at least " +
                     shortest(kDefaultEnergyWindowS) +
                     " s; adds J/GEMM, GFLOP/J, W (mean power) and SM MHz (mean SM clock) columns (n/a where NVML "
                     "or the counter is missing)");
    std::string sustained;
    const CLI::Option* sustained_option =
        app.add_option("--sustained", sustained,
                       "--energy with windows of at least SECONDS each (more than 0, at most " +
                           shortest(kMaxEnergyWindowS) + "), e.g. 20 to see the power-capped steady state")
            ->type_name("SECONDS");
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp&) {
        std::fputs(app.help().c_str(), stdout);
        return false;
    } catch (const CLI::ParseError& e) {
        throw UsageError(e.what());
    }
    out.sizes.clear();
    for (const auto& s : sizes) out.sizes.push_back(parse_size(s));
    if (!inits.empty()) out.inits = select_distributions(inits);
    if (!layouts.empty()) out.layouts = select_layouts(layouts);
    if (*sustained_option) {
        out.energy_window_s = parse_sustained(sustained);
        out.energy = true;
    }
    // Range checks with plain messages (CLI11's ranges print DBL_MAX in full).
    if (out.reps < 1) throw UsageError("--reps must be at least 1");
    if (out.warmup < 0) throw UsageError("--warmup must be 0 or more");
    if (out.device < 0) throw UsageError("--device must be 0 or more");
    if (out.ld_pad < 0) throw UsageError("--ld-pad must be 0 or more");
    if (out.offset < 0 || out.offset > 1024) throw UsageError("--offset must be between 0 and 1024 floats");
    if (!std::isfinite(out.alpha)) throw UsageError("--alpha must be a finite number");
    if (!std::isfinite(out.beta)) throw UsageError("--beta must be a finite number");
    for (const Size& s : out.sizes)
        for (const Ops l : out.layouts) check_leading_dimensions(s, out.ld_pad, l);
    if (!out.json.empty() && !(out.list && out.json == "-")) ensure_writable(out.json);
    return true;
}

}  // namespace sgemm
