#include "registry.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

namespace sgemm {

namespace {
std::vector<KernelInfo>& mutable_registry() {
    static std::vector<KernelInfo> kernels;  // function-local: safe against static-initialisation order
    return kernels;
}

bool valid_name(std::string_view name) {
    return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    });
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
    char prefix[16];  // "01_", "07_", "905_"
    std::snprintf(prefix, sizeof prefix, "%02d_", number);
    return prefix + name;
}

std::string KernelInfo::describe(const GemmArgs& args) const { return describe_fn ? describe_fn(args) : ""; }

std::string KernelInfo::can_implement(const GemmArgs& args) const {
    return can_implement_fn ? can_implement_fn(args) : "";
}

std::size_t KernelInfo::workspace_bytes(const GemmArgs& args) const { return workspace_fn ? workspace_fn(args) : 0; }

std::string KernelInfo::unmet_requirements(int cc) const {
    // sm_90a code runs only on compute capability 9.0 itself: arch-specific features are not
    // forward-compatible to later architectures.
    if (requirements.needs_sm90a && cc != 90) return "needs sm_90a";
    if (cc < requirements.min_cc)
        return "needs sm_" + std::to_string(requirements.min_cc) + " or newer";
    return "";
}

const std::vector<KernelInfo>& registry() { return mutable_registry(); }

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
    for (const auto& k : kernels)
        if (k.number == spec.number || k.name == name)
            throw std::logic_error("sgemm registry: kernel " + std::to_string(spec.number) + " '" + name +
                                   "' clashes with " + k.label());
    KernelInfo info;
    info.number = spec.number;
    info.name = name;
    info.idea = spec.idea ? spec.idea : "";
    info.launch = spec.launch;
    info.describe_fn = spec.describe;
    info.can_implement_fn = spec.can_implement;
    info.workspace_fn = spec.workspace_bytes;
    info.requirements = spec.requirements;
    info.precision = spec.precision;
    info.candidates_fn = spec.candidates;
    info.launch_candidate = spec.launch_candidate;
    kernels.insert(std::upper_bound(kernels.begin(), kernels.end(), info,
                                     [](const KernelInfo& a, const KernelInfo& b) { return a.number < b.number; }),
                   std::move(info));
}

const KernelInfo* find_kernel(std::string_view key) {
    if (key.empty()) return nullptr;
    const bool numeric = std::all_of(key.begin(), key.end(), [](char c) { return c >= '0' && c <= '9'; });
    for (const auto& k : registry()) {
        if (numeric) {
            if (key.size() <= 4 && std::stoi(std::string(key)) == k.number) return &k;
        } else if (key == k.name || key == k.label()) {
            return &k;
        }
    }
    return nullptr;
}

std::string validate(const GemmArgs& a) {
    if (a.M < 1 || a.N < 1 || a.K < 1) return "M, N and K must be at least 1";
    if (a.lda < a.K) return "lda must be at least K";
    if (a.ldb < a.N) return "ldb must be at least N";
    if (a.ldc < a.N) return "ldc must be at least N";
    if (!a.A || !a.B || !a.C) return "A, B and C must not be null";
    return "";
}

}  // namespace sgemm
