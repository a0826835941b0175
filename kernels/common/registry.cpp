#include "registry.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <tuple>

namespace sgemm {

namespace {
std::vector<KernelInfo>& mutable_registry() {
    static std::vector<KernelInfo> kernels;  // function-local: safe against static-initialisation order
    return kernels;
}

// "07", "905": as labels and function names spell numbers.
std::string two_digits(int number) {
    char text[16];
    std::snprintf(text, sizeof text, "%02d", number);
    return text;
}

bool valid_name(std::string_view name) {
    return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    });
}

// "sgemm_07_": the prefix of step 7's __global__ functions.
std::string function_prefix(int step) { return "sgemm_" + two_digits(step) + "_"; }

// The ladder's order (registry()): every kernel but the tuning variants by step, a step's sub-steps
// before it by letter; then the tuning variants by number.
bool ladder_before(const KernelInfo& a, const KernelInfo& b) {
    auto key = [](const KernelInfo& k) {
        const bool variant = k.is_tuning_variant();
        return std::tuple(variant, variant ? k.spec.number : k.step, !k.is_sub_step(), k.spec.part);
    };
    return key(a) < key(b);
}

bool all_digits(std::string_view text) {
    return std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

const char* to_string(Precision p) {
    switch (p) {
        case Precision::kFp32: return "fp32";
        case Precision::kFp32ViaTensorCores: return "fp32 via tensor cores";
        case Precision::kTf32: return "tf32";
    }
    return "unknown";
}

std::string KernelInfo::label() const {
    return is_sub_step() ? two_digits(step) + spec.part + "_" + name : two_digits(spec.number) + "_" + name;
}

std::string KernelInfo::functions() const { return step > 0 && !is_baseline() ? function_prefix(step) : ""; }

std::vector<std::string> KernelInfo::launched_functions() const {
    std::vector<std::string> out;
    if (!functions().empty()) out.push_back(functions());
    for (int composed : spec.composes) out.push_back(function_prefix(composed));
    return out;
}

std::string KernelInfo::sass_functions() const {
    if (spec.sass.required.empty() && spec.sass.absent.empty()) return "";
    if (spec.sass.functions) return spec.sass.functions;
    return spec.gemm_function ? spec.gemm_function : functions();
}

std::string KernelInfo::describe(const GemmArgs& args) const { return spec.describe ? spec.describe(args) : ""; }

std::string KernelInfo::can_implement(const GemmArgs& args) const {
    if (!spec.any_layout && (args.op_a != Op::kN || args.op_b != Op::kN)) return "NN only";
    return spec.can_implement ? spec.can_implement(args) : "";
}

std::size_t KernelInfo::workspace_bytes(const GemmArgs& args) const {
    return spec.workspace_bytes ? spec.workspace_bytes(args) : 0;
}

std::string KernelInfo::unmet_requirements(int cc) const {
    // sm_90a code runs only on compute capability 9.0 itself: arch-specific features are not
    // forward-compatible to later architectures.
    if (spec.requirements.needs_sm90a && cc != 90) return "needs sm_90a";
    if (cc < spec.requirements.min_cc) return "needs sm_" + std::to_string(spec.requirements.min_cc) + " or newer";
    return "";
}

const std::vector<KernelInfo>& registry() { return mutable_registry(); }

void Registration::throw_functions_set_twice(const KernelSpec& spec) {
    throw std::logic_error("sgemm registry: kernel '" + std::string(spec.name ? spec.name : "") +
                           "' registers a configuration type and sets its functions in the spec as well");
}

Registration::Registration(const KernelSpec& spec) {
    auto& kernels = mutable_registry();
    const std::string name = spec.name ? spec.name : "";
    if (!valid_name(name))
        throw std::logic_error("sgemm registry: kernel " + std::to_string(spec.number) + " has name '" + name +
                               "'; names are [a-z0-9_]+");
    if (spec.number < 0 || !spec.launch)
        throw std::logic_error("sgemm registry: kernel '" + name + "' needs a number >= 0 and a launch function");
    if (!spec.candidates != !spec.launch_candidate)
        throw std::logic_error("sgemm registry: kernel '" + name + "' sets only one of candidates/launch_candidate");
    if (spec.part && (spec.part < 'a' || spec.part > 'i' || spec.number < 1 || spec.number >= kTunedBaseline))
        throw std::logic_error("sgemm registry: sub-step '" + name +
                               "' needs a letter from 'a' to 'i' and its step's number (1 to " +
                               std::to_string(kTunedBaseline - 1) + ")");
    const int number = spec.part ? sub_step_number(spec.number, spec.part) : spec.number;
    for (const auto& k : kernels)
        if (k.spec.number == number || k.name == name)
            throw std::logic_error("sgemm registry: kernel " + std::to_string(number) + " '" + name +
                                   "' clashes with " + k.label());
    KernelInfo info;
    info.spec = spec;
    info.spec.number = number;
    info.spec.idea = spec.idea ? spec.idea : "";
    info.name = name;
    info.step = spec.number;
    if (info.is_tuning_variant()) {
        const KernelInfo* step = step_of_variant(name);
        if (!step)
            throw std::logic_error("sgemm registry: tuning variant " + std::to_string(spec.number) + " '" + name +
                                   "' matches no step: its name must start with its step's name and '_', and it "
                                   "registers after its step, in the step's file");
        info.step = step->spec.number;
        if (!info.spec.gemm_function) info.spec.gemm_function = step->spec.gemm_function;
        // A variant runs its step's code: it needs at least what the step needs (it may ask for more).
        Requirements& r = info.spec.requirements;
        r.min_cc = std::max(r.min_cc, step->spec.requirements.min_cc);
        r.needs_sm90a = r.needs_sm90a || step->spec.requirements.needs_sm90a;
    }
    // The functions a profiler or check_sass.py is pointed at must be this kernel's own.
    for (const char* function : {info.spec.gemm_function, info.spec.sass.functions})
        if (function && (info.is_baseline() || !std::string_view(function).starts_with(info.functions())))
            throw std::logic_error("sgemm registry: kernel '" + name + "' names function '" + function + "', " +
                                   (info.is_baseline()
                                        ? "but it has no sgemm_NN_ functions"
                                        : "which is not one of its " + info.functions() + "* functions"));
    if (info.spec.sass.functions && info.sass_functions().empty())
        throw std::logic_error("sgemm registry: kernel '" + name + "' names SASS functions but no features");
    kernels.insert(std::upper_bound(kernels.begin(), kernels.end(), info, ladder_before), std::move(info));
}

const KernelInfo* step_of_variant(std::string_view name) {
    const KernelInfo* step = nullptr;
    for (const auto& k : registry())
        if (!k.is_tuning_variant() && !k.is_baseline() && !k.is_sub_step() && name.size() > k.name.size() &&
            name.starts_with(k.name) && name[k.name.size()] == '_' && (!step || k.name.size() > step->name.size()))
            step = &k;
    return step;
}

const KernelInfo* find_kernel(std::string_view key) {
    if (key.empty()) return nullptr;
    const bool numeric = all_digits(key);
    // "9a", "09a": at most 4 digits, the step, then the sub-step's letter.
    const std::string_view digits = key.substr(0, key.size() - 1);
    const char letter = key.back();
    const bool sub_step_key =
        !numeric && !digits.empty() && digits.size() <= 4 && all_digits(digits) && letter >= 'a' && letter <= 'z';
    // The number a numeric key names, or the step a sub-step key names; -1 for none (5 digits and more).
    const int number = numeric && key.size() <= 4 ? std::stoi(std::string(key))
        : sub_step_key                            ? std::stoi(std::string(digits))
                                                  : -1;
    for (const auto& k : registry()) {
        if (numeric) {
            if (number == k.spec.number) return &k;
        } else if ((sub_step_key && k.spec.part == letter && number == k.step) || key == k.name || key == k.label()) {
            return &k;
        }
    }
    return nullptr;
}

std::string layout_name(Op op_a, Op op_b) {
    return std::string(op_a == Op::kN ? "N" : "T") + (op_b == Op::kN ? "N" : "T");
}

std::string validate(const GemmArgs& a) {
    if (a.M < 1 || a.N < 1 || a.K < 1) return "M, N and K must be at least 1";
    const bool a_t = a.op_a == Op::kT, b_t = a.op_b == Op::kT;  // stored K x M, N x K: rows of M, K floats
    if (a.lda < (a_t ? a.M : a.K)) return a_t ? "lda must be at least M (A transposed)" : "lda must be at least K";
    if (a.ldb < (b_t ? a.K : a.N)) return b_t ? "ldb must be at least K (B transposed)" : "ldb must be at least N";
    if (a.ldc < a.N) return "ldc must be at least N";
    if (!a.A || !a.B || !a.C) return "A, B and C must not be null";
    return "";
}

}  // namespace sgemm
