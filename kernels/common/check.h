// The one error-checking helper of sgemm-steps: every CUDA runtime and cuBLAS
// call goes through sgemm::check(), every kernel launch through
// sgemm::launch_checked(). A failure throws sgemm::CudaError naming the call
// site, so a kernel bug surfaces as a clear message rather than a wrong number.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <source_location>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace sgemm {

struct CudaError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

[[noreturn]] void throw_cuda_error(const std::string& what, std::source_location where);

inline void check(cudaError_t status, std::source_location where = std::source_location::current()) {
    if (status != cudaSuccess)
        throw_cuda_error(std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status), where);
}

inline void check(cublasStatus_t status, std::source_location where = std::source_location::current()) {
    if (status != CUBLAS_STATUS_SUCCESS)
        throw_cuda_error(std::string("cuBLAS ") + cublasGetStatusName(status) + ": " + cublasGetStatusString(status),
                         where);
}

#ifdef __CUDACC__  // the <<<>>> launch syntax exists only in CUDA translation units
// Launches `kernel` and checks the launch itself (bad configuration, too much
// shared memory). Errors raised while the kernel runs are asynchronous: the
// runner and the tests check them with a synchronize after each checked run.
template <typename... KernelArgs, typename... Args>
void launch_checked(void (*kernel)(KernelArgs...), dim3 grid, dim3 block, size_t smem_bytes, cudaStream_t stream,
                    Args&&... args) {
    kernel<<<grid, block, smem_bytes, stream>>>(std::forward<Args>(args)...);
    check(cudaGetLastError());
}

// [doc:launch-chained]
// As launch_checked, for the second and later kernels of a chain on one stream: the launch may
// begin while the previous kernel still runs (programmatic dependent launch, sm_90+), so that its
// blocks are resident when that kernel ends. `kernel` must call sgemm::wait_prior_grid()
// (tile.cuh) before it touches memory, on every path, so that the chain still ends in order.
template <typename... KernelArgs, typename... Args>
void launch_chained(void (*kernel)(KernelArgs...), dim3 grid, dim3 block, size_t smem_bytes, cudaStream_t stream,
                    Args&&... args) {
    cudaLaunchAttribute early{};
    early.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    early.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config{};
    config.gridDim = grid;
    config.blockDim = block;
    config.dynamicSmemBytes = smem_bytes;
    config.stream = stream;
    config.attrs = &early;
    config.numAttrs = 1;
    check(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...));
}
// [/doc:launch-chained]
#endif

// More than 48 KB of dynamic shared memory per block needs an opt-in for each kernel, on each
// device. This one asks the current device once per (kernel, device, bytes) and keeps only
// successes: a failure is reported again on the next launch, and a second GPU gets its own call.
void allow_dynamic_smem(const void* kernel, int bytes);
template <typename... KernelArgs>
void allow_dynamic_smem(void (*kernel)(KernelArgs...), int bytes) {
    allow_dynamic_smem(reinterpret_cast<const void*>(kernel), bytes);
}

// A CUDA event owned by RAII: a launch that throws between two records must not leak it.
struct Event {
    cudaEvent_t e = nullptr;
    Event() { check(cudaEventCreate(&e)); }
    ~Event() { cudaEventDestroy(e); }
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
};

// One attribute of a device (cudaDeviceGetAttribute, checked).
inline int device_attribute(cudaDeviceAttr attr, int device) {
    int value = 0;
    check(cudaDeviceGetAttribute(&value, attr, device));
    return value;
}

// A value made once for each CUDA device, on first use from that device (the current one):
// e.g. a model of its attributes. `make(device)` runs at most once per device and call site: Make
// must be a lambda (each lambda type has a cache of its own), and must not call back into the same
// call site. If it throws, nothing is kept and the next call retries. Other devices do not wait.
template <typename T, typename Make>
const T& per_device(Make make) {
    static_assert(std::is_class_v<Make>, "pass a lambda: the cache is per Make type, shared by all plain functions");
    struct Entry {
        std::once_flag once;
        std::unique_ptr<const T> value;
    };
    static std::mutex mutex;  // guards the map only, not make()
    static std::map<int, Entry> entries;
    int device = 0;
    check(cudaGetDevice(&device));
    Entry* entry = nullptr;
    {
        const std::lock_guard lock(mutex);
        entry = &entries[device];  // std::map: the entry stays where it is as others are added
    }
    std::call_once(entry->once, [&] { entry->value = std::make_unique<const T>(make(device)); });
    return *entry->value;
}

// What the models of steps 12, 13 and 14 read of the current GPU, queried once per device
// (per_device): compute capability x 10, SMs, the maximum SM clock (Hz), and the memory clock (Hz)
// and bus width that give the DRAM peak (gpu_rates.h's dram_peak_bytes_per_s).
struct GpuAtHand {
    int cc = 0, sms = 0;
    double sm_clock_hz = 0, mem_clock_hz = 0;
    int bus_bits = 0;
    long long l2_bytes = 0;
};
inline const GpuAtHand& gpu_at_hand() {
    return per_device<GpuAtHand>([](int device) {
        GpuAtHand g;
        g.cc = 10 * device_attribute(cudaDevAttrComputeCapabilityMajor, device) +
            device_attribute(cudaDevAttrComputeCapabilityMinor, device);
        g.sms = device_attribute(cudaDevAttrMultiProcessorCount, device);
        g.sm_clock_hz = 1e3 * device_attribute(cudaDevAttrClockRate, device);
        g.mem_clock_hz = 1e3 * device_attribute(cudaDevAttrMemoryClockRate, device);
        g.bus_bits = device_attribute(cudaDevAttrGlobalMemoryBusWidth, device);
        g.l2_bytes = device_attribute(cudaDevAttrL2CacheSize, device);
        return g;
    });
}

// ceil(a / b) for a >= 0, b > 0, without the overflow of (a + b - 1) / b near 2^31.
__host__ __device__ constexpr int ceil_div(int a, int b) { return a / b + (a % b != 0); }

// Row pitches of staged copies are a multiple of 4 floats (16 bytes: TMA's row pitch, float4 rows) ...
constexpr long long round_up4(long long x) { return (x + 3) / 4 * 4; }
// ... or, for copies that TMA reads in boxes, whole 128-byte lines: `count` elements of `element_bytes`
// each, padded so that every row starts on a line (a box row that straddles two lines costs two L2
// transactions, or three sectors instead of two).
constexpr long long line_pitch(long long count, int element_bytes) {
    const long long per_line = 128 / element_bytes;
    return (count + per_line - 1) / per_line * per_line;
}
// ... and each buffer carved out of a workspace starts 256-byte aligned.
constexpr std::size_t align256(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

}  // namespace sgemm
