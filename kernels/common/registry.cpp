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
}  // namespace

std::string KernelInfo::label() const {
    char prefix[16];  // "01_", "07_", "905_"
    std::snprintf(prefix, sizeof prefix, "%02d_", number);
    return prefix + name;
}

const std::vector<KernelInfo>& registry() { return mutable_registry(); }

Registration::Registration(int number, const char* name, const char* idea, LaunchFn launch, unsigned flags) {
    auto& kernels = mutable_registry();
    for (const auto& k : kernels)
        if (k.number == number || k.name == name)
            throw std::logic_error("sgemm registry: kernel " + std::to_string(number) + " '" + name +
                                   "' clashes with " + k.label());
    KernelInfo info{number, name, idea, launch, flags};
    kernels.insert(std::upper_bound(kernels.begin(), kernels.end(), info,
                                     [](const KernelInfo& a, const KernelInfo& b) { return a.number < b.number; }),
                   info);
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

}  // namespace sgemm
