// Command-line options of sgemm_runner, parsed with CLI11.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "common/registry.h"
#include "distribution.h"
#include "energy.h"
#include "size.h"

namespace sgemm {

// Bad usage: the runner prints the message and exits with code 2.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The exit statuses of sgemm_runner and sgemm_ceilings (their --help says them): 1 a kernel failed its
// check (the runner), 2 bad usage (before any GPU work), 3 no usable GPU or a CUDA/runtime error.
inline constexpr int kExitFail = 1, kExitUsage = 2, kExitRuntime = 3;

// "M,N,K" (also "MxNxK"), each a positive integer below 2^31. Throws UsageError.
Size parse_size(std::string_view text);

// One --layout: op(A) and op(B) of a run ("NT": A as stored, B transposed; registry.h says how each
// is stored).
struct Ops {
    Op a = Op::kN, b = Op::kN;
    friend bool operator==(const Ops&, const Ops&) = default;
};

struct Options {
    std::vector<std::string> kernels{"all"};
    std::vector<Size> sizes;  // empty after parsing means the default 4096^3
    float alpha = 1.0f;
    float beta = 0.0f;
    int warmup = 5;
    int reps = 20;
    std::uint64_t seed = 20261121;
    std::string json;
    bool list = false;
    int device = 0;
    bool check = true;
    bool hot_l2 = false;
    int ld_pad = 0;   // lda = K + ld_pad, ldb = ldc = N + ld_pad
    int offset = 0;   // A, B and C start this many floats after an aligned allocation
    bool verbose = false;
    bool tune = false;
    bool roofline = true;  // --no-roofline: no DRAM measurement, no roof per shape
    bool tuned_baseline = true;  // --no-tuned-baseline: the tuned baseline only where --kernel names it
    std::vector<Distribution> inits{Distribution::kUniform};  // --init: one table per size and distribution
    std::vector<Ops> layouts{Ops{}};  // --layout: one table per size, distribution and layout; NN by default
    bool energy = false;  // --energy (or --sustained): an energy window after each row's timing
    double energy_window_s = kDefaultEnergyWindowS;  // --sustained SECONDS: its least length
};

// --sustained's value: a number of seconds, more than 0 and at most kMaxEnergyWindowS. Throws UsageError.
double parse_sustained(std::string_view text);

// Parses argv. Returns false when the program should exit 0 at once (--help
// was printed). Throws UsageError on anything malformed or out of range (every
// check that needs no GPU happens here, before any GPU work).
bool parse_options(int argc, const char* const* argv, Options& out);

// Resolves --kernel entries ("all", numbers, names, comma lists) against the
// registry, in registry order, without duplicates: the kernels `--list --kernel KEYS`
// lists, cuBLAS (0) included where named ("0", "cublas", "all"). Throws UsageError
// that lists the valid kernels on an unknown one.
std::vector<const KernelInfo*> resolve_kernels(const std::vector<std::string>& keys);

// The kernels a run times besides the baselines: resolve_kernels(keys) less cuBLAS, which the runner
// always times, and less the tuned baseline (kTunedBaseline), which it times unless told otherwise
// (times_tuned_baseline).
std::vector<const KernelInfo*> select_kernels(const std::vector<std::string>& keys);

// Whether a run times the tuned baseline: by default; with --no-tuned-baseline only where a --kernel
// entry names it (a number, name or label: "all" does not), since a kernel named is a kernel run.
bool times_tuned_baseline(const Options& options);

// Resolves --init entries (names, comma lists, "all") in the order given, without duplicates.
// Throws UsageError that lists the valid names on an unknown one.
std::vector<Distribution> select_distributions(const std::vector<std::string>& keys);

// Resolves --layout entries (NN, NT, TN, TT, comma lists, "all") in the order given, without
// duplicates. Throws UsageError that lists the valid layouts on an unknown one.
std::vector<Ops> select_layouts(const std::vector<std::string>& keys);

// "  0  cublas          cuBLAS SGEMM ..." one line per kernel resolve_kernels(keys) returns
// (--list, --list --kernel KEYS).
std::string kernel_list(const std::vector<std::string>& keys = {"all"});

// The same kernels as JSON (--list --json; docs/json-format.md): number, name, label, idea,
// requirements, precision, tuning variant or step, whether it can be tuned, its step, functions,
// GEMM function, SASS checks, whether it takes every layout and whether it is a baseline; and the
// number tuning variants start at and the tuned baseline's number.
std::string kernel_list_json(const std::vector<std::string>& keys = {"all"});

// Throws UsageError unless `path` can be created or appended to. Leaves no new file behind.
void ensure_writable(const std::string& path);

// Throws UsageError when --ld-pad makes a leading dimension of `size` in `layout` reach 2^31
// (M, N or K plus the pad, as the layout stores A and B).
void check_leading_dimensions(const Size& size, int ld_pad, Ops layout = {});

}  // namespace sgemm
