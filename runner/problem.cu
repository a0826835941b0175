#include "problem.h"

#include <cublas_v2.h>

#include <algorithm>
#include <exception>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "common/check.h"
#include "common/cublas_pieces.h"
#include "event_timing.h"

namespace sgemm {

namespace {

std::size_t elems(long long a, long long b) { return static_cast<std::size_t>(a) * static_cast<std::size_t>(b); }

// Every element of a whole buffer (offset, view, padding, guard): see element_value.
__global__ void fill(float* p, std::size_t n, FillSpec spec) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x)
        p[i] = element_value(spec, i);
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

// The M x N view of a matrix with leading dimension ld, into a dense M x N double matrix.
__global__ void view_to_double(const float* src, int ld, int N, double* dst, std::size_t n, bool absolute) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x) {
        const double v = src[i / N * ld + i % N];
        dst[i] = absolute ? fabs(v) : v;
    }
}

// [doc:count-outside-changes]
// Counts the elements of C's buffer outside its M x N view (the offset before it, the padding
// columns of each row, the guard after it) whose bits differ from what the reset wrote there.
__global__ void count_outside_changes(const float* buffer, const float* expected, float expected_value, std::size_t n,
                                      std::size_t offset, int ldc, int N, std::size_t view_end,
                                      unsigned long long* out) {
    unsigned long long changed = 0;
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x) {
        const bool inside = i >= offset && i < view_end && (i - offset) % ldc < static_cast<std::size_t>(N);
        if (inside) continue;
        const float want = expected ? expected[i] : expected_value;
        changed += __float_as_uint(buffer[i]) != __float_as_uint(want);
    }
    for (int o = 16; o > 0; o /= 2) changed += __shfl_down_sync(0xffffffffu, changed, o);
    if (threadIdx.x % 32 == 0 && changed) atomicAdd(out, changed);
}

struct DeviceStats {
    double sum_sq_diff, sum_sq_ref, sum_sq_abs_ref;
    unsigned long long nonfinite, violations, missed_nonfinite, inexact;
    unsigned long long max_abs_diff_bits;  // non-negative doubles order like their bits
};

// [doc:compare]
// The accumulation of compare_host (verify.h's accumulate, element by element), in parallel.
// C is the M x N view with leading dimension ldc; R, Rabs and base are dense M x N.
__global__ void compare(const float* C, int ldc, int N, const double* R, const double* Rabs, const float* base,
                        std::size_t n, double gamma, double exact_limit, DeviceStats* out) {
    ErrorStats s;
    double max_base = 0;
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x) {
        const float c = C[i / N * ldc + i % N];
        if (accumulate(s, c, R[i], Rabs[i], gamma, exact_limit) && base)
            max_base = fmax(max_base, fabs(static_cast<double>(c) - static_cast<double>(base[i])));
    }
    for (int offset = 16; offset > 0; offset /= 2) {
        s.sum_sq_diff += __shfl_down_sync(0xffffffffu, s.sum_sq_diff, offset);
        s.sum_sq_ref += __shfl_down_sync(0xffffffffu, s.sum_sq_ref, offset);
        s.sum_sq_abs_ref += __shfl_down_sync(0xffffffffu, s.sum_sq_abs_ref, offset);
        max_base = fmax(max_base, __shfl_down_sync(0xffffffffu, max_base, offset));
        s.nonfinite += __shfl_down_sync(0xffffffffu, s.nonfinite, offset);
        s.violations += __shfl_down_sync(0xffffffffu, s.violations, offset);
        s.missed_nonfinite += __shfl_down_sync(0xffffffffu, s.missed_nonfinite, offset);
        s.inexact += __shfl_down_sync(0xffffffffu, s.inexact, offset);
    }
    if (threadIdx.x % 32 == 0) {
        atomicAdd(&out->sum_sq_diff, s.sum_sq_diff);
        atomicAdd(&out->sum_sq_ref, s.sum_sq_ref);
        atomicAdd(&out->sum_sq_abs_ref, s.sum_sq_abs_ref);
        atomicAdd(&out->nonfinite, s.nonfinite);
        atomicAdd(&out->violations, s.violations);
        atomicAdd(&out->missed_nonfinite, s.missed_nonfinite);
        atomicAdd(&out->inexact, s.inexact);
        unsigned long long bits;
        std::memcpy(&bits, &max_base, sizeof bits);
        atomicMax(&out->max_abs_diff_bits, bits);
    }
}

constexpr int kThreads = 256;
int grid_for(std::size_t n) { return static_cast<int>(std::min<std::size_t>((n + kThreads - 1) / kThreads, 4096)); }

// Floats after the last row of each buffer, checked like the padding: a kernel that writes past
// the end of C's view changes them.
constexpr std::size_t kGuard = 64;

// C's value before a beta = 0 run: a NaN (so that a kernel that reads C fails) with a payload
// of its own, so that a write of any computed value, NaN included, outside the view shows.
const float kPoison = [] {
    const std::uint32_t bits = 0x7fc0dead;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}();

cublasHandle_t reference_handle() {
    static cublasHandle_t h = [] {
        cublasHandle_t created;
        check(cublasCreate(&created));
        return created;
    }();
    return h;
}

struct Extents {  // elements of each whole buffer (offset + rows * ld + guard), and the leading dimensions
    int lda, ldb, ldc;
    std::size_t a, b, c, mn;
};

Extents extents(Size s, Layout l) {
    // Stored shapes (registry.h): A M x K or, transposed, K x M; B K x N or N x K.
    const bool ta = l.op_a == Op::kT, tb = l.op_b == Op::kT;
    Extents e;
    e.lda = (ta ? s.M : s.K) + l.ld_pad;
    e.ldb = (tb ? s.K : s.N) + l.ld_pad;
    e.ldc = s.N + l.ld_pad;
    e.a = l.offset + elems(ta ? s.K : s.M, e.lda) + kGuard;
    e.b = l.offset + elems(tb ? s.N : s.K, e.ldb) + kGuard;
    e.c = l.offset + elems(s.M, e.ldc) + kGuard;
    e.mn = elems(s.M, s.N);
    return e;
}

std::size_t flush_bytes_for_device() {
    int device = 0, l2 = 0;
    check(cudaGetDevice(&device));
    check(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
    return 2 * static_cast<std::size_t>(l2);
}

}  // namespace

Launcher launcher_of(const KernelInfo& kernel, const GemmArgs& args) {
    return {kernel.spec.launch, kernel.workspace_bytes(args)};
}

Launcher launcher_of(const KernelInfo& kernel, const Candidate& candidate) {
    const LaunchCandidateFn launch = kernel.spec.launch_candidate;
    const int id = candidate.id;
    return {[launch, id](const GemmArgs& a, void* ws, cudaStream_t s) { launch(a, id, ws, s); },
            candidate.workspace_bytes};
}

void fill_buffer(float* p, std::size_t n, const FillSpec& spec, cudaStream_t stream) {
    launch_checked(fill, dim3(grid_for(n)), dim3(kThreads), 0, stream, p, n, spec);
}

std::size_t Problem::bytes_needed(Size s, bool with_reference, Layout layout, std::size_t workspace_bytes) {
    const Extents e = extents(s, layout);
    std::size_t bytes = sizeof(float) * (e.a + e.b + 2 * e.c + e.mn) + workspace_bytes;  // A, B, C0, C, baseline
    // During the reference: A and B in double, R and Rabs.
    if (with_reference) bytes += sizeof(double) * (e.a + e.b + 2 * e.mn);
    return bytes;
}

void Problem::ensure_fits(Size size, bool with_reference, Layout layout, std::size_t workspace_bytes) {
    std::size_t free_bytes = 0, total_bytes = 0;
    check(cudaMemGetInfo(&free_bytes, &total_bytes));
    const std::size_t reserve = 512ull << 20;  // cuBLAS workspaces, the CUDA context's own growth
    const std::size_t need =
        bytes_needed(size, with_reference, layout, workspace_bytes) + flush_bytes_for_device() + reserve;
    if (need > free_bytes)
        throw DoesNotFitError("problem " + std::to_string(size.M) + "x" + std::to_string(size.N) + "x" +
                              std::to_string(size.K) + " needs " + std::to_string(need >> 20) +
                              " MiB of GPU memory (inputs, output, float64 reference, workspace, L2 flush buffer) "
                              "but only " +
                              std::to_string(free_bytes >> 20) + " MiB are free" +
                              (with_reference ? "; --no-check needs less" : ""));
}

namespace {
// The GEMM call on the views into buffers that start at A, B and C.
GemmArgs view_args(Size s, float alpha, float beta, Layout layout, float* A, float* B, float* C) {
    const Extents e = extents(s, layout);
    const int o = layout.offset;
    return {s.M, s.N, s.K, alpha, beta, A + o, e.lda, B + o, e.ldb, C + o, e.ldc, layout.op_a, layout.op_b};
}
}  // namespace

GemmArgs Problem::args_for(Size s, float alpha, float beta, Layout layout) {
    // cudaMalloc aligns to 256 bytes: any multiple of 256 stands in for a real buffer.
    auto at = [](std::uintptr_t base) { return reinterpret_cast<float*>(base); };
    return view_args(s, alpha, beta, layout, at(0x10000), at(0x20000), at(0x30000));
}

Problem::Problem(Size size, float alpha, float beta, std::uint64_t seed, bool with_reference, Layout layout,
                 std::size_t workspace_bytes, Distribution init)
    : size_(size), alpha_(alpha), beta_(beta), with_reference_(with_reference), layout_(layout), init_(init) {
    ensure_fits(size, with_reference, layout, workspace_bytes);
    const Extents e = extents(size, layout);
    check(cudaStreamCreateWithFlags(&stream_holder_.s, cudaStreamNonBlocking));
    stream_ = stream_holder_.s;
    A_ = DeviceBuffer<float>(e.a);
    B_ = DeviceBuffer<float>(e.b);
    C0_ = DeviceBuffer<float>(e.c);
    C_ = DeviceBuffer<float>(e.c);
    base_ = DeviceBuffer<float>(e.mn);
    flush_ = DeviceBuffer<char>(flush_bytes_for_device());
    if (workspace_bytes) workspace_ = DeviceBuffer<char>(workspace_bytes);
    args_ = view_args(size, alpha, beta, layout, A_.get(), B_.get(), C_.get());
    // The whole buffers are random, padding and guard included: a kernel that reads padding as
    // if it were data gets a wrong result.
    for (const auto& [buffer, which, ld, transposed] :
         {std::tuple{&A_, Operand::kA, e.lda, layout.op_a == Op::kT},
          std::tuple{&B_, Operand::kB, e.ldb, layout.op_b == Op::kT}, std::tuple{&C0_, Operand::kC0, e.ldc, false}})
        fill_buffer(buffer->get(), buffer->size(),
                    fill_spec(init, which, size.M, size.N, size.K, ld, layout.offset, seed, transposed), stream_);

    // [doc:reference]
    if (with_reference) {
        // R = alpha op(A) op(B) + beta C0 and Rabs = |alpha||op(A)||op(B)| + |beta||C0| in float64
        // (cuBLAS DGEMM on upcast inputs: exact inputs, ~1e-16 rounding), dense M x N. Inf and NaN
        // inputs (--init special) reach R through plain arithmetic; with alpha = 0, BLAS allows
        // DGEMM not to read A and B at all.
        DeviceBuffer<double> Ad(e.a), Bd(e.b);
        R_ = DeviceBuffer<double>(e.mn);
        Rabs_ = DeviceBuffer<double>(e.mn);
        cublasHandle_t h = reference_handle();
        check(cublasSetStream(h, stream_));
        auto dgemm = [&](bool absolute, double* out) {
            to_double<<<grid_for(e.a), kThreads, 0, stream_>>>(A_.get(), Ad.get(), e.a, absolute);
            to_double<<<grid_for(e.b), kThreads, 0, stream_>>>(B_.get(), Bd.get(), e.b, absolute);
            view_to_double<<<grid_for(e.mn), kThreads, 0, stream_>>>(C0_.get() + layout.offset, e.ldc, size.N, out,
                                                                     e.mn, absolute);
            check(cudaGetLastError());
            const double a = absolute ? std::fabs(double(alpha)) : double(alpha);
            const double b = absolute ? std::fabs(double(beta)) : double(beta);
            // Row-major through column-major cuBLAS: C^T = op(B)^T op(A)^T, in the layout's operations (see
            // kernels/00_cublas.cu). In pieces (common/cublas_pieces.h) of rows and columns of R (leading
            // dimension N) and of K, each within 2^30 elements of every operand whatever the layout.
            const PiecePitches pitches = gemm_pitches(layout.op_a, e.lda, layout.op_b, e.ldb, size.N);
            for_each_gemm_piece(size.M, size.N, size.K, pitches, [&](const GemmPiece& p) {
                const double b0 = p.k0 == 0 ? b : 1.0;  // later slices of K add to the first's
                check(cublasDgemm(h, cublas_op(layout.op_b), cublas_op(layout.op_a), p.n, p.m, p.k, &a,
                                  Bd.get() + layout.offset + b_offset(layout.op_b, e.ldb, p.n0, p.k0), e.ldb,
                                  Ad.get() + layout.offset + a_offset(layout.op_a, e.lda, p.m0, p.k0), e.lda, &b0,
                                  out + p.m0 * size.N + p.n0, size.N));
            });
        };
        dgemm(false, R_.get());
        dgemm(true, Rabs_.get());
        check(cudaStreamSynchronize(stream_));
    }
    // [/doc:reference]
    synchronize_and_check();
}

void* Problem::workspace(std::size_t bytes) {
    if (bytes == 0) return nullptr;
    if (bytes > workspace_.bytes()) {
        synchronize_and_check();
        workspace_ = DeviceBuffer<char>();  // free first: the fit check counted one workspace
        workspace_ = DeviceBuffer<char>(bytes);
    }
    return workspace_.get();
}

// [doc:reset-output]
void Problem::reset_output() {
    const std::size_t n = C_.size();
    if (beta_ == 0.0f) {
        fill_value<<<grid_for(n), kThreads, 0, stream_>>>(C_.get(), n, kPoison);
        check(cudaGetLastError());
    } else {
        check(cudaMemcpyAsync(C_.get(), C0_.get(), n * sizeof(float), cudaMemcpyDeviceToDevice, stream_));
    }
}

void Problem::synchronize_and_check() {
    check(cudaStreamSynchronize(stream_));
    check(cudaGetLastError());
}

void Problem::run_once(const KernelInfo& kernel) { run_once(launcher_of(kernel, args_)); }

void* Problem::prepare_launch(const Launcher& l) {
    void* ws = workspace(l.workspace_bytes);
    reset_output();
    // NaN in every workspace byte: a kernel that reads workspace it did not write fails the check.
    if (ws) check(cudaMemsetAsync(ws, 0xFF, l.workspace_bytes, stream_));
    return ws;
}

void Problem::run_once(const Launcher& l) {
    void* ws = prepare_launch(l);
    l.launch(args_, ws, stream_);
    check(cudaGetLastError());
    synchronize_and_check();
}

void Problem::run_captured(const Launcher& l) {
    void* ws = prepare_launch(l);
    synchronize_and_check();  // the resets are not part of the graph
    cudaGraph_t graph = nullptr;
    check(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
    std::exception_ptr failed;  // the launch's own error, which wins over the capture's
    try {
        l.launch(args_, ws, stream_);
    } catch (...) {
        failed = std::current_exception();
    }
    const cudaError_t ended = cudaStreamEndCapture(stream_, &graph);  // the stream is usable again
    if (failed || ended != cudaSuccess) {
        if (graph) cudaGraphDestroy(graph);
        cudaGetLastError();  // a failed capture's error, which would otherwise surface at the next check
        if (failed) std::rethrow_exception(failed);
        check(ended);
    }
    cudaGraphExec_t exec = nullptr;
    const cudaError_t instantiated = cudaGraphInstantiate(&exec, graph, 0);
    cudaGraphDestroy(graph);
    check(instantiated);
    const cudaError_t launched = cudaGraphLaunch(exec, stream_);
    const cudaError_t done = cudaStreamSynchronize(stream_);
    cudaGraphExecDestroy(exec);
    check(launched);
    check(done);
    check(cudaGetLastError());
}

void Problem::keep_as_baseline() {
    check(cudaMemcpy2DAsync(base_.get(), size_.N * sizeof(float), args_.C, args_.ldc * sizeof(float),
                            size_.N * sizeof(float), size_.M, cudaMemcpyDeviceToDevice, stream_));
    synchronize_and_check();
    have_base_ = true;
}

std::vector<float> Problem::output() const {
    std::vector<float> out(elems(size_.M, size_.N));
    check(cudaMemcpy2DAsync(out.data(), size_.N * sizeof(float), args_.C, args_.ldc * sizeof(float),
                            size_.N * sizeof(float), size_.M, cudaMemcpyDeviceToHost, stream_));
    check(cudaStreamSynchronize(stream_));
    return out;
}

CheckResult Problem::verify() const {
    if (!with_reference_) throw std::logic_error("Problem::verify() needs the float64 reference");
    DeviceBuffer<DeviceStats> d(1);
    DeviceBuffer<unsigned long long> outside(1);
    check(cudaMemsetAsync(d.get(), 0, sizeof(DeviceStats), stream_));
    check(cudaMemsetAsync(outside.get(), 0, sizeof(unsigned long long), stream_));
    const std::size_t mn = elems(size_.M, size_.N);
    compare<<<grid_for(mn), kThreads, 0, stream_>>>(
        args_.C, args_.ldc, size_.N, R_.get(), Rabs_.get(), have_base_ ? base_.get() : nullptr, mn,
        componentwise_gamma(size_.K), exact_limit(init_, alpha_, beta_), d.get());
    const std::size_t view_end = layout_.offset + elems(size_.M, args_.ldc);
    count_outside_changes<<<grid_for(C_.size()), kThreads, 0, stream_>>>(C_.get(), beta_ == 0.0f ? nullptr : C0_.get(),
                                                                         kPoison, C_.size(), layout_.offset, args_.ldc,
                                                                         size_.N, view_end, outside.get());
    check(cudaGetLastError());
    DeviceStats h{};
    unsigned long long outside_count = 0;
    check(cudaMemcpyAsync(&h, d.get(), sizeof h, cudaMemcpyDeviceToHost, stream_));
    check(cudaMemcpyAsync(&outside_count, outside.get(), sizeof outside_count, cudaMemcpyDeviceToHost, stream_));
    check(cudaStreamSynchronize(stream_));

    CheckResult r;
    r.stats = {.sum_sq_diff = h.sum_sq_diff,
               .sum_sq_ref = h.sum_sq_ref,
               .sum_sq_abs_ref = h.sum_sq_abs_ref,
               .nonfinite = h.nonfinite,
               .violations = h.violations,
               .missed_nonfinite = h.missed_nonfinite,
               .inexact = h.inexact};
    r.rel_err = relative_error(r.stats);
    std::memcpy(&r.max_abs_diff_base, &h.max_abs_diff_bits, sizeof(double));
    if (h.nonfinite) r.max_abs_diff_base = std::nan("");
    r.outside_writes = outside_count;
    r.pass = verdict(r, size_.K, Precision::kFp32) == Verdict::kPass;
    return r;
}

Timing Problem::time(const KernelInfo& kernel, int warmup, int reps, bool hot_l2) {
    return time(launcher_of(kernel, args_), warmup, reps, hot_l2);
}

Timing Problem::time(const Launcher& l, int warmup, int reps, bool hot_l2) {
    void* ws = workspace(l.workspace_bytes);  // allocated before any timed launch
    reset_output();
    for (int i = 0; i < warmup; ++i) l.launch(args_, ws, stream_);
    std::vector<Event> start(reps), stop(reps);
    for (int i = 0; i < reps; ++i) {
        // With beta != 0 each launch reads C: restore it so that values stay
        // bounded (and every launch does the same work). Outside the events.
        if (beta_ != 0.0f) check(cudaMemcpyAsync(C_.get(), C0_.get(), C_.bytes(), cudaMemcpyDeviceToDevice, stream_));
        // Writing an L2-sized buffer evicts A, B and C from L2 (as nvbench does),
        // so each launch starts from DRAM like a GEMM inside a real program.
        if (!hot_l2) check(cudaMemsetAsync(flush_.get(), i & 0xff, flush_.bytes(), stream_));
        check(cudaEventRecord(start[i].e, stream_));
        l.launch(args_, ws, stream_);
        check(cudaEventRecord(stop[i].e, stream_));
    }
    synchronize_and_check();
    std::vector<float> ms(reps);
    for (int i = 0; i < reps; ++i) check(cudaEventElapsedTime(&ms[i], start[i].e, stop[i].e));
    return summarize(ms);
}

void Problem::run_back_to_back(const Launcher& l, std::int64_t count) {
    void* ws = workspace(l.workspace_bytes);
    for (std::int64_t i = 0; i < count; ++i) l.launch(args_, ws, stream_);
    check(cudaGetLastError());
    synchronize_and_check();
}

}  // namespace sgemm
