#include "problem.h"

#include <cublas_v2.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "common/check.h"

namespace sgemm {

namespace {

std::size_t elems(long long a, long long b) { return static_cast<std::size_t>(a) * static_cast<std::size_t>(b); }

__host__ __device__ std::uint64_t splitmix64(std::uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// Uniform in [-1, 1) on a 2^-23 grid: exact in FP32 (and FP64), never zero-heavy.
__global__ void fill_uniform(float* p, std::size_t n, std::uint64_t seed) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x) {
        const std::uint64_t bits = splitmix64(seed ^ splitmix64(i)) >> 40;  // 24 random bits
        p[i] = static_cast<float>(static_cast<double>(bits) * (1.0 / 8388608.0) - 1.0);
    }
}

__global__ void fill_value(float* p, std::size_t n, float value) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x)
        p[i] = value;
}

__global__ void to_double(const float* src, double* dst, std::size_t n, bool absolute) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x)
        dst[i] = absolute ? fabs(static_cast<double>(src[i])) : static_cast<double>(src[i]);
}

struct DeviceStats {
    double sum_sq_diff, sum_sq_ref, sum_sq_abs_ref;
    unsigned long long nonfinite, violations, max_abs_diff_bits;  // non-negative doubles order like their bits
};

// The same accumulation as verify.cpp's compare_host, in parallel.
__global__ void compare(const float* C, const double* R, const double* Rabs, const float* base, std::size_t n,
                        double gamma, DeviceStats* out) {
    double diff = 0, ref = 0, abs_ref = 0, max_base = 0;
    unsigned long long nonfinite = 0, violations = 0;
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x) {
        const double r = R[i], ra = Rabs[i];
        ref += r * r;
        abs_ref += ra * ra;
        const float c = C[i];
        if (!isfinite(c)) {
            ++nonfinite;
            continue;
        }
        const double d = static_cast<double>(c) - r;
        diff += d * d;
        if (fabs(d) > gamma * ra) ++violations;
        if (base) max_base = fmax(max_base, fabs(static_cast<double>(c) - static_cast<double>(base[i])));
    }
    for (int offset = 16; offset > 0; offset /= 2) {
        diff += __shfl_down_sync(0xffffffffu, diff, offset);
        ref += __shfl_down_sync(0xffffffffu, ref, offset);
        abs_ref += __shfl_down_sync(0xffffffffu, abs_ref, offset);
        max_base = fmax(max_base, __shfl_down_sync(0xffffffffu, max_base, offset));
        nonfinite += __shfl_down_sync(0xffffffffu, nonfinite, offset);
        violations += __shfl_down_sync(0xffffffffu, violations, offset);
    }
    if (threadIdx.x % 32 == 0) {
        atomicAdd(&out->sum_sq_diff, diff);
        atomicAdd(&out->sum_sq_ref, ref);
        atomicAdd(&out->sum_sq_abs_ref, abs_ref);
        atomicAdd(&out->nonfinite, nonfinite);
        atomicAdd(&out->violations, violations);
        unsigned long long bits;
        std::memcpy(&bits, &max_base, sizeof bits);
        atomicMax(&out->max_abs_diff_bits, bits);
    }
}

constexpr int kThreads = 256;
int grid_for(std::size_t n) { return static_cast<int>(std::min<std::size_t>((n + kThreads - 1) / kThreads, 4096)); }

template <typename T>
T* device_alloc(std::size_t count) {
    void* p = nullptr;
    check(cudaMalloc(&p, std::max<std::size_t>(count, 1) * sizeof(T)));
    return static_cast<T*>(p);
}

std::uint64_t matrix_seed(std::uint64_t seed, Size s, int which) {
    return splitmix64(seed ^ splitmix64((std::uint64_t(s.M) << 42) ^ (std::uint64_t(s.N) << 21) ^ s.K) ^
                      splitmix64(which));
}

cublasHandle_t reference_handle() {
    static cublasHandle_t h = [] {
        cublasHandle_t created;
        check(cublasCreate(&created));
        return created;
    }();
    return h;
}

}  // namespace

std::size_t Problem::bytes_needed(Size s, bool with_reference) {
    const std::size_t mk = elems(s.M, s.K), kn = elems(s.K, s.N), mn = elems(s.M, s.N);
    std::size_t bytes = sizeof(float) * (mk + kn + 3 * mn);  // A, B, C0, C, baseline
    // During the reference: A and B in double, R and Rabs.
    if (with_reference) bytes += sizeof(double) * (mk + kn + 2 * mn);
    return bytes;
}

namespace {
std::size_t flush_bytes_for_device() {
    int device = 0, l2 = 0;
    check(cudaGetDevice(&device));
    check(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
    return 2 * static_cast<std::size_t>(l2);
}
}  // namespace

void Problem::ensure_fits(Size size, bool with_reference) {
    std::size_t free_bytes = 0, total_bytes = 0;
    check(cudaMemGetInfo(&free_bytes, &total_bytes));
    const std::size_t reserve = 512ull << 20;  // cuBLAS workspaces, the CUDA context's own growth
    const std::size_t need = bytes_needed(size, with_reference) + flush_bytes_for_device() + reserve;
    if (need > free_bytes)
        throw DoesNotFitError("problem " + std::to_string(size.M) + "x" + std::to_string(size.N) + "x" +
                              std::to_string(size.K) + " needs " + std::to_string(need >> 20) +
                              " MiB of GPU memory (inputs, output, float64 reference, L2 flush buffer) but only " +
                              std::to_string(free_bytes >> 20) + " MiB are free" +
                              (with_reference ? "; --no-check needs less" : ""));
}

Problem::Problem(Size size, float alpha, float beta, std::uint64_t seed, bool with_reference)
    : size_(size), alpha_(alpha), beta_(beta), with_reference_(with_reference) {
    ensure_fits(size, with_reference);
    flush_bytes_ = flush_bytes_for_device();
    check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    const std::size_t mk = elems(size.M, size.K), kn = elems(size.K, size.N), mn = elems(size.M, size.N);
    A_ = device_alloc<float>(mk);
    B_ = device_alloc<float>(kn);
    C0_ = device_alloc<float>(mn);
    C_ = device_alloc<float>(mn);
    base_ = device_alloc<float>(mn);
    flush_ = device_alloc<char>(flush_bytes_);
    fill_uniform<<<grid_for(mk), kThreads, 0, stream_>>>(A_, mk, matrix_seed(seed, size, 0));
    fill_uniform<<<grid_for(kn), kThreads, 0, stream_>>>(B_, kn, matrix_seed(seed, size, 1));
    fill_uniform<<<grid_for(mn), kThreads, 0, stream_>>>(C0_, mn, matrix_seed(seed, size, 2));
    check(cudaGetLastError());

    if (with_reference) {
        // R = alpha A B + beta C0 and Rabs = |alpha||A||B| + |beta||C0| in float64
        // (cuBLAS DGEMM on upcast inputs: exact inputs, ~1e-16 rounding).
        double* Ad = device_alloc<double>(mk);
        double* Bd = device_alloc<double>(kn);
        R_ = device_alloc<double>(mn);
        Rabs_ = device_alloc<double>(mn);
        cublasHandle_t h = reference_handle();
        check(cublasSetStream(h, stream_));
        auto dgemm = [&](bool absolute, double* out) {
            to_double<<<grid_for(mk), kThreads, 0, stream_>>>(A_, Ad, mk, absolute);
            to_double<<<grid_for(kn), kThreads, 0, stream_>>>(B_, Bd, kn, absolute);
            to_double<<<grid_for(mn), kThreads, 0, stream_>>>(C0_, out, mn, absolute);
            check(cudaGetLastError());
            const double a = absolute ? std::fabs(double(alpha)) : double(alpha);
            const double b = absolute ? std::fabs(double(beta)) : double(beta);
            // Row-major through column-major cuBLAS: C^T = B^T A^T (see kernels/00_cublas.cu).
            check(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, size.N, size.M, size.K, &a, Bd, size.N, Ad, size.K, &b,
                              out, size.N));
        };
        dgemm(false, R_);
        dgemm(true, Rabs_);
        check(cudaStreamSynchronize(stream_));
        check(cudaFree(Ad));
        check(cudaFree(Bd));
    }
    synchronize_and_check();
}

Problem::~Problem() {
    // Destructors must not throw: errors here would already have been reported.
    for (void* p : {static_cast<void*>(A_), static_cast<void*>(B_), static_cast<void*>(C0_), static_cast<void*>(C_),
                    static_cast<void*>(base_), static_cast<void*>(R_), static_cast<void*>(Rabs_), flush_})
        if (p) cudaFree(p);
    if (stream_) cudaStreamDestroy(stream_);
}

void Problem::reset_output() {
    const std::size_t mn = elems(size_.M, size_.N);
    if (beta_ == 0.0f) {
        fill_value<<<grid_for(mn), kThreads, 0, stream_>>>(C_, mn, std::numeric_limits<float>::quiet_NaN());
        check(cudaGetLastError());
    } else {
        check(cudaMemcpyAsync(C_, C0_, mn * sizeof(float), cudaMemcpyDeviceToDevice, stream_));
    }
}

void Problem::synchronize_and_check() {
    check(cudaStreamSynchronize(stream_));
    check(cudaGetLastError());
}

void Problem::launch(const KernelInfo& kernel) {
    kernel.launch(size_.M, size_.N, size_.K, alpha_, A_, B_, beta_, C_, stream_);
}

void Problem::run_once(const KernelInfo& kernel) {
    reset_output();
    launch(kernel);
    synchronize_and_check();
}

void Problem::keep_as_baseline() {
    check(cudaMemcpyAsync(base_, C_, elems(size_.M, size_.N) * sizeof(float), cudaMemcpyDeviceToDevice, stream_));
    synchronize_and_check();
    have_base_ = true;
}

CheckResult Problem::verify() const {
    if (!with_reference_) throw std::logic_error("Problem::verify() needs the float64 reference");
    DeviceStats* d = device_alloc<DeviceStats>(1);
    check(cudaMemsetAsync(d, 0, sizeof(DeviceStats), stream_));
    const std::size_t mn = elems(size_.M, size_.N);
    compare<<<grid_for(mn), kThreads, 0, stream_>>>(C_, R_, Rabs_, have_base_ ? base_ : nullptr, mn,
                                                    componentwise_gamma(size_.K), d);
    check(cudaGetLastError());
    DeviceStats h{};
    check(cudaMemcpyAsync(&h, d, sizeof h, cudaMemcpyDeviceToHost, stream_));
    check(cudaStreamSynchronize(stream_));
    check(cudaFree(d));

    CheckResult r;
    r.stats = {h.sum_sq_diff, h.sum_sq_ref, h.sum_sq_abs_ref, h.nonfinite, h.violations};
    r.rel_err = relative_error(r.stats);
    std::memcpy(&r.max_abs_diff_base, &h.max_abs_diff_bits, sizeof(double));
    if (h.nonfinite) r.max_abs_diff_base = std::nan("");
    r.pass = passes(r.stats, size_.K);
    return r;
}

Timing Problem::time(const KernelInfo& kernel, int warmup, int reps, bool hot_l2) {
    const std::size_t mn = elems(size_.M, size_.N);
    reset_output();
    for (int i = 0; i < warmup; ++i) launch(kernel);
    std::vector<cudaEvent_t> start(reps), stop(reps);
    for (int i = 0; i < reps; ++i) {
        check(cudaEventCreate(&start[i]));
        check(cudaEventCreate(&stop[i]));
    }
    for (int i = 0; i < reps; ++i) {
        // With beta != 0 each launch reads C: restore it so that values stay
        // bounded (and every launch does the same work). Outside the events.
        if (beta_ != 0.0f) check(cudaMemcpyAsync(C_, C0_, mn * sizeof(float), cudaMemcpyDeviceToDevice, stream_));
        // Writing an L2-sized buffer evicts A, B and C from L2 (as nvbench does),
        // so each launch starts from DRAM like a GEMM inside a real program.
        if (!hot_l2) check(cudaMemsetAsync(flush_, i & 0xff, flush_bytes_, stream_));
        check(cudaEventRecord(start[i], stream_));
        launch(kernel);
        check(cudaEventRecord(stop[i], stream_));
    }
    synchronize_and_check();
    std::vector<double> ms(reps);
    for (int i = 0; i < reps; ++i) {
        float t = 0;
        check(cudaEventElapsedTime(&t, start[i], stop[i]));
        ms[i] = t;
        check(cudaEventDestroy(start[i]));
        check(cudaEventDestroy(stop[i]));
    }
    std::sort(ms.begin(), ms.end());
    const double median = reps % 2 ? ms[reps / 2] : 0.5 * (ms[reps / 2 - 1] + ms[reps / 2]);
    return {median, ms.front()};
}

}  // namespace sgemm
