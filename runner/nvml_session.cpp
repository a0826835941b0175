#include "nvml_session.h"

#include <cuda_runtime.h>
#include <dlfcn.h>

#include <string>
#include <type_traits>
#include <utility>

// Where nvml.h is installed its declarations type the functions looked up; otherwise the same
// signatures are spelled out (nvmlReturn_t and nvmlClockType_t are int-sized enums).
#if __has_include(<nvml.h>)
#include <nvml.h>
using NvmlInitFn = decltype(&nvmlInit_v2);
using NvmlShutdownFn = decltype(&nvmlShutdown);
using NvmlErrorStringFn = decltype(&nvmlErrorString);
using NvmlDriverVersionFn = decltype(&nvmlSystemGetDriverVersion);
using NvmlByPciFn = decltype(&nvmlDeviceGetHandleByPciBusId_v2);
using NvmlClockFn = decltype(&nvmlDeviceGetClockInfo);
using NvmlEnergyFn = decltype(&nvmlDeviceGetTotalEnergyConsumption);
using NvmlPowerFn = decltype(&nvmlDeviceGetPowerUsage);
using NvmlClockType = nvmlClockType_t;
constexpr NvmlClockType kNvmlClockSm = NVML_CLOCK_SM, kNvmlClockMem = NVML_CLOCK_MEM;
#else
enum NvmlClockType { kNvmlClockSm = 1, kNvmlClockMem = 2 };  // nvmlClockType_t's values
using NvmlInitFn = int (*)();
using NvmlShutdownFn = int (*)();
using NvmlErrorStringFn = const char* (*)(int);
using NvmlDriverVersionFn = int (*)(char*, unsigned);
using NvmlByPciFn = int (*)(const char*, nvmlDevice_st**);
using NvmlClockFn = int (*)(nvmlDevice_st*, NvmlClockType, unsigned*);
using NvmlEnergyFn = int (*)(nvmlDevice_st*, unsigned long long*);
using NvmlPowerFn = int (*)(nvmlDevice_st*, unsigned*);
#endif

namespace sgemm {

namespace {

using NvmlReturn = decltype(std::declval<NvmlInitFn>()());  // nvmlReturn_t: 0 is success

// The library and its functions, looked up once per process and never unloaded. init, shutdown and
// by_pci are required; a function an older driver lacks is null and its reads are empty.
struct Library {
    void* handle = nullptr;
    std::string why_not;  // with a null handle
    NvmlInitFn init = nullptr;
    NvmlShutdownFn shutdown = nullptr;
    NvmlErrorStringFn error_string = nullptr;
    NvmlDriverVersionFn driver_version = nullptr;
    NvmlByPciFn by_pci = nullptr;
    NvmlClockFn clock = nullptr;
    NvmlEnergyFn energy = nullptr;
    NvmlPowerFn power = nullptr;

    Library() {
        handle = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!handle) {
            why_not = "libnvidia-ml.so.1 not found";
            return;
        }
        auto find = [&](auto& fn, const char* name) {
            fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(handle, name));
        };
        find(init, "nvmlInit_v2");
        find(shutdown, "nvmlShutdown");
        find(error_string, "nvmlErrorString");
        find(driver_version, "nvmlSystemGetDriverVersion");
        find(by_pci, "nvmlDeviceGetHandleByPciBusId_v2");
        find(clock, "nvmlDeviceGetClockInfo");
        find(energy, "nvmlDeviceGetTotalEnergyConsumption");
        find(power, "nvmlDeviceGetPowerUsage");
        for (const auto& [found, name] :
             {std::pair{init != nullptr, "nvmlInit_v2"}, std::pair{shutdown != nullptr, "nvmlShutdown"},
              std::pair{by_pci != nullptr, "nvmlDeviceGetHandleByPciBusId_v2"}})
            if (!found) {
                why_not = std::string("libnvidia-ml.so.1 has no ") + name;
                handle = nullptr;
                return;
            }
    }

    // "Not Supported (NVML error 3)", or the number alone where nvmlErrorString is missing.
    std::string error(NvmlReturn rc) const {
        const std::string number = "NVML error " + std::to_string(static_cast<int>(rc));
        return error_string ? std::string(error_string(rc)) + " (" + number + ")" : number;
    }

    static const Library& get() {
        static const Library library;
        return library;
    }
};

void say(std::string* why_not, std::string text) {
    if (why_not) *why_not = std::move(text);
}

}  // namespace

std::optional<NvmlSession> NvmlSession::open(std::string* why_not) {
    const Library& lib = Library::get();
    if (!lib.handle) {
        say(why_not, lib.why_not);
        return std::nullopt;
    }
    if (const NvmlReturn rc = lib.init(); rc != 0) {
        say(why_not, "nvmlInit_v2 failed: " + lib.error(rc));
        return std::nullopt;
    }
    NvmlSession session;
    session.open_ = true;
    return session;
}

const NvmlSession* NvmlSession::shared() {
    static const std::optional<NvmlSession> session = open();
    return session ? &*session : nullptr;
}

NvmlSession::~NvmlSession() {
    if (open_) Library::get().shutdown();
}

std::optional<NvmlDevice> NvmlSession::device(int cuda_device, std::string* why_not) const {
    char bus[32] = {};
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, cuda_device) != cudaSuccess) {
        cudaGetLastError();  // not sticky, but leave no error behind for the next check()
        say(why_not, "no PCI bus id for CUDA device " + std::to_string(cuda_device));
        return std::nullopt;
    }
    NvmlDevice handle = nullptr;
    if (const NvmlReturn rc = Library::get().by_pci(bus, &handle); rc != 0) {
        say(why_not, std::string("no NVML device at PCI bus id ") + bus + ": " + Library::get().error(rc));
        return std::nullopt;
    }
    return handle;
}

std::optional<std::string> NvmlSession::driver_version() const {
    const Library& lib = Library::get();
    char text[96] = {};
    if (!lib.driver_version || lib.driver_version(text, sizeof text) != 0) return std::nullopt;
    return std::string(text);
}

std::optional<unsigned> NvmlSession::clock_mhz(NvmlDevice device, NvmlClock clock) const {
    const Library& lib = Library::get();
    unsigned mhz = 0;
    if (!lib.clock || lib.clock(device, clock == NvmlClock::kSm ? kNvmlClockSm : kNvmlClockMem, &mhz) != 0)
        return std::nullopt;
    return mhz;
}

std::optional<unsigned long long> NvmlSession::total_energy_mj(NvmlDevice device, std::string* why_not) const {
    const Library& lib = Library::get();
    if (!lib.energy) {
        say(why_not, "libnvidia-ml.so.1 has no nvmlDeviceGetTotalEnergyConsumption (driver too old)");
        return std::nullopt;
    }
    unsigned long long mj = 0;
    if (const NvmlReturn rc = lib.energy(device, &mj); rc != 0) {
        say(why_not, "total-energy counter: " + lib.error(rc));
        return std::nullopt;
    }
    return mj;
}

std::optional<unsigned> NvmlSession::power_mw(NvmlDevice device) const {
    const Library& lib = Library::get();
    unsigned mw = 0;
    if (!lib.power || lib.power(device, &mw) != 0) return std::nullopt;
    return mw;
}

}  // namespace sgemm
