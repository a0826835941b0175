// Step 13: one call for every shape and every layout. Two families are each the fastest somewhere:
// step 12's 3xTF32 on the tensor cores wherever there is arithmetic to do (it pays ~25 us of
// launches and a pre-pass that moves 12 bytes per operand element), step 10's FFMA tiles and
// streaming kernels wherever bytes or launches dominate. Each step already models its own time on
// the GPU at hand (step 10's planner; step 12's model_seconds); this step asks both and runs the
// faster. Layouts: op(A) = A or A^T, op(B) = B or B^T (cuBLAS's NN, NT, TN, TT). Step 12's split
// pass stages both operands K-major for wgmma anyway, so it takes every layout at the same cost
// (the pass transposes what is not K-major yet). Step 10 reads NN only, so for it a transposed
// operand is first transposed into the workspace, and the model charges that copy to the FFMA path.
// The library call of include/sgemm/sgemm.h is this step. See docs/kernels/13_one_call.md.
#include "common/check.h"
#include "common/gpu_rates.h"
#include "common/registry.h"
#include "common/staging.cuh"
#include "common/step_entries.h"
#include "common/tile.cuh"
#include "sgemm/sgemm.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <limits>
#include <string>
#include <utility>

namespace {

using sgemm::GemmArgs;
using sgemm::Op;

// [doc:transpose]
// The FFMA path's layout passes, through shared memory so that reads and writes both stay coalesced
// (step 12's staging walk): src (rows x cols, ld_src) -> dst = src^T; and, for a product computed
// transposed, C = alpha D^T + beta C (beta == 0: C is not read), the epilogue every step applies.
__global__ void __launch_bounds__(sgemm::kStageTile* sgemm::kStageRows)
    sgemm_13_one_call_transpose(int rows, int cols, const float* src, int ld_src, float* dst, int ld_dst) {
    sgemm::stage_tiles<true>(rows, cols, src, ld_src,
                             [&](int r, int c, float x) { dst[static_cast<std::size_t>(r) * ld_dst + c] = x; });
}

__global__ void __launch_bounds__(sgemm::kStageTile* sgemm::kStageRows)
    sgemm_13_one_call_transpose_c(int N, int M, const float* D, int ldd, float* C, int ldc, float alpha, float beta) {
    sgemm::stage_tiles<true>(N, M, D, ldd,
                             [&](int m, int n, float x) { sgemm::store_c(C, ldc, m, n, M, N, x, alpha, beta); });
}
// [/doc:transpose]

// A copy runs at the DRAM rate a streaming kernel reaches and costs a launch (kernels/common/gpu_rates.h).
using sgemm::kLaunchSeconds;

struct Device {
    bool tensor = false;  // step 12 runs here: compute capability 9.0 (sm_90a code)
    double dram = 0;      // bytes/s a copy reaches
};

Device device() {
    const sgemm::GpuAtHand& g = sgemm::gpu_at_hand();
    return {.tensor = g.cc == 90,
            .dram = sgemm::dram_peak_bytes_per_s(g.mem_clock_hz, g.bus_bits) * sgemm::kStreamDramFraction};
}

// [doc:ffma-forms]
// Step 10 reads NN only. A layout reaches it in one of two forms, each an NN product:
//   direct:  C = op(A) op(B), op(A) M x K and op(B) K x N row-major (a transposed operand is
//            transposed into the workspace first);
//   swapped: C^T = op(B)^T op(A)^T, N x M, into the workspace, then transposed into C with alpha and
//            beta. op(B)^T is B itself where op_b = T (B is stored N x K), op(A)^T is A where op_a = T:
//            TT needs no operand copy, and a linear layer's NT with few rows of A (x W^T) becomes
//            step 10's matrix-vector kernels on W as stored, with only x and C copied.
// Workspace pieces 256-byte aligned, rows padded to 4 floats; step 10's plan depends on the alignment
// of B's and C's rows, so sizing (base 0) and launching (a 256-byte aligned base) see the same plan.
struct Copy {  // dst (cols x rows, ld_dst) = src^T (rows x cols, ld_src)
    int rows, cols;
    const float* src;
    int ld_src;
    float* dst;
    int ld_dst;
};

struct FfmaForm {
    bool swapped = false;
    GemmArgs nn;             // what step 10 runs (swapped: the N x M product into `d`, alpha 1, beta 0)
    Copy copies[2] = {};     // operand transposes before it
    int num_copies = 0;
    std::uintptr_t end = 0;  // step 10's own workspace starts here
};

// A workspace row of n floats, padded to 4 (16-byte aligned rows) unless that would pass INT_MAX.
int padded(int n) { return n > INT_MAX - 3 ? n : static_cast<int>(sgemm::round_up4(n)); }

FfmaForm ffma_form(const GemmArgs& a, bool swapped, std::uintptr_t base) {
    FfmaForm f;
    f.swapped = swapped;
    f.end = base;
    auto take = [&](long long rows, int ld) {
        return reinterpret_cast<float*>(
            std::exchange(f.end, f.end + sgemm::align256(static_cast<std::size_t>(rows) * ld * sizeof(float))));
    };
    // The NN operand `rows x cols` that is op(X) (or its transpose): X in place when stored that way,
    // else a transposed copy of X (stored cols x rows).
    auto operand = [&](bool in_place, const float* x, int ldx, int rows, int cols, const float*& out, int& ld) {
        if (in_place) {
            out = x, ld = ldx;
            return;
        }
        ld = padded(cols);
        float* dst = take(rows, ld);
        f.copies[f.num_copies++] = Copy{cols, rows, x, ldx, dst, ld};
        out = dst;
    };
    const bool a_t = a.op_a == Op::kT, b_t = a.op_b == Op::kT;
    f.nn = a;
    f.nn.op_a = f.nn.op_b = Op::kN;
    if (!swapped) {
        operand(!a_t, a.A, a.lda, a.M, a.K, f.nn.A, f.nn.lda);
        operand(!b_t, a.B, a.ldb, a.K, a.N, f.nn.B, f.nn.ldb);
    } else {
        f.nn.M = a.N, f.nn.N = a.M, f.nn.alpha = 1.0f, f.nn.beta = 0.0f;
        operand(b_t, a.B, a.ldb, a.N, a.K, f.nn.A, f.nn.lda);
        operand(a_t, a.A, a.lda, a.K, a.M, f.nn.B, f.nn.ldb);
        f.nn.ldc = padded(a.M);
        f.nn.C = take(a.N, f.nn.ldc);
    }
    return f;
}

// The copies' time: every element read and written once (the swapped form's C also read when beta != 0).
double copy_seconds(const FfmaForm& f, const GemmArgs& a) {
    double bytes = 0;
    for (int i = 0; i < f.num_copies; ++i) bytes += 8.0 * f.copies[i].rows * f.copies[i].cols;
    if (f.swapped) bytes += (a.beta == 0.0f ? 8.0 : 12.0) * a.M * a.N;
    return (f.num_copies + f.swapped) * kLaunchSeconds + bytes / device().dram;
}
// [/doc:ffma-forms]

// [doc:plan]
// The pick: each way's modelled time, the fastest runs. An FFMA form's time is step 10's for its NN
// product plus its copies; the tensor path's is step 12's, the same in every layout (its split pass
// stages both operands anyway). Where step 12 cannot run (no sm_90a, or a shape it cannot index), an
// FFMA form runs. The swapped form is weighed only where it saves a copy of an operand: NT, TN and TT
// (in NN it would add two).
enum class Way { kTensor, kDirect, kSwapped, kInt8 };
constexpr int kWays = 4;
struct Plan {
    Way way = Way::kDirect;
    double seconds[kWays] = {};  // by Way; infinity: cannot run
};

// [doc:pick]
Plan plan(const GemmArgs& a) {
    constexpr double kNever = std::numeric_limits<double>::infinity();
    Plan p;
    const sgemm::StepEntry& ffma = sgemm::every_shape_entry();
    for (const bool swapped : {false, true}) {
        const FfmaForm f = ffma_form(a, swapped, 0);
        const bool weighed = !swapped || a.op_a == Op::kT || a.op_b == Op::kT;
        p.seconds[swapped ? 2 : 1] =
            weighed && ffma.can_implement(f.nn).empty() ? ffma.model_seconds(f.nn) + copy_seconds(f, a) : kNever;
    }
    const sgemm::StepEntry& tensor = sgemm::tf32x3_wgmma_entry();
    p.seconds[0] = device().tensor && tensor.can_implement(a).empty() ? tensor.model_seconds(a) : kNever;
    const sgemm::StepEntry& int8 = sgemm::ozaki_int8_entry();
    p.seconds[3] = device().tensor && int8.can_implement(a).empty() ? int8.model_seconds(a) : kNever;
    p.way = static_cast<Way>(std::min_element(p.seconds, p.seconds + kWays) - p.seconds);
    return p;
}
// [/doc:pick]
// [/doc:plan]

std::string microseconds(double seconds) {
    if (std::isinf(seconds)) return "n/a";
    char text[32];
    std::snprintf(text, sizeof(text), "%.1f us", seconds * 1e6);
    return text;
}

// What the planned way runs, needs and is: the registry's functions below plan each call themselves, the
// library's gemm() plans once and passes the plan to each.
void run(const GemmArgs& args, const Plan& p, void* workspace, cudaStream_t stream) {
    if (p.way == Way::kTensor) return sgemm::tf32x3_wgmma_entry().launch(args, workspace, stream);
    if (p.way == Way::kInt8) return sgemm::ozaki_int8_entry().launch(args, workspace, stream);
    const FfmaForm f = ffma_form(args, p.way == Way::kSwapped, reinterpret_cast<std::uintptr_t>(workspace));
    const dim3 block(sgemm::kStageTile, sgemm::kStageRows);
    for (int i = 0; i < f.num_copies; ++i) {
        const Copy& c = f.copies[i];
        sgemm::launch_checked(sgemm_13_one_call_transpose, sgemm::stage_grid(c.rows, c.cols), block, 0, stream, c.rows,
                              c.cols, c.src, c.ld_src, c.dst, c.ld_dst);
    }
    sgemm::every_shape_entry().launch(f.nn, reinterpret_cast<void*>(f.end), stream);
    if (f.swapped)
        sgemm::launch_checked(sgemm_13_one_call_transpose_c, sgemm::stage_grid(args.N, args.M), block, 0, stream,
                              args.N, args.M, f.nn.C, f.nn.ldc, args.C, args.ldc, args.alpha, args.beta);
}

std::size_t workspace_of(const GemmArgs& args, const Plan& p) {
    if (p.way == Way::kTensor) return sgemm::tf32x3_wgmma_entry().workspace_bytes(args);
    if (p.way == Way::kInt8) return sgemm::ozaki_int8_entry().workspace_bytes(args);
    const FfmaForm f = ffma_form(args, p.way == Way::kSwapped, 0);
    return f.end + sgemm::every_shape_entry().workspace_bytes(f.nn);
}

// Empty when some way can run `args`; else why the FFMA family cannot (the tensor path is never alone).
std::string unrunnable(const GemmArgs& args, const Plan& p) {
    if (!std::isinf(p.seconds[static_cast<int>(p.way)])) return "";
    return sgemm::every_shape_entry().can_implement(ffma_form(args, false, 0).nn);
}

struct Gemm {
    static void launch(const GemmArgs& args, void* workspace, cudaStream_t stream) {
        run(args, plan(args), workspace, stream);
    }

    static std::size_t workspace_bytes(const GemmArgs& args) { return workspace_of(args, plan(args)); }

    static std::string describe(const GemmArgs& args) {
        const Plan p = plan(args);
        const std::string models = " (model: tensor " + microseconds(p.seconds[0]) + ", FFMA " +
            microseconds(p.seconds[1]) + ", FFMA swapped " + microseconds(p.seconds[2]) + ", int8 " +
            microseconds(p.seconds[3]) + ")";
        if (p.way == Way::kTensor)
            return "3xTF32 tensor cores, step 12" + models + ": " + sgemm::tf32x3_wgmma_entry().describe(args);
        if (p.way == Way::kInt8)
            return "int8 tensor cores, step 14" + models + ": " + sgemm::ozaki_int8_entry().describe(args);
        const FfmaForm f = ffma_form(args, p.way == Way::kSwapped, 0);
        const std::string form = f.swapped ? ", C^T = op(B)^T op(A)^T then transposed" : "";
        const std::string copies =
            f.num_copies ? ", " + std::to_string(f.num_copies) + " operand(s) transposed first" : "";
        return "FFMA, step 10" + form + copies + models + ": " + sgemm::every_shape_entry().describe(f.nn);
    }

    static std::string can_implement(const GemmArgs& args) { return unrunnable(args, plan(args)); }
};

}  // namespace

// ---- the library: include/sgemm/sgemm.h, on Gemm above --------------------------------------
namespace sgemm {
namespace {

thread_local std::string last_failure;  // why the last call on this thread failed

Status fail(Status status, std::string why) {
    last_failure = std::move(why);
    return status;
}

// A call's arguments; null pointers stand for "some 16-byte aligned matrix" where only sizes matter.
GemmArgs args_of(Op op_a, Op op_b, int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb,
                 float beta, float* C, int ldc) {
    return GemmArgs{M, N, K, alpha, beta, A, lda, B, ldb, C, ldc, op_a, op_b};
}

// The ways a matrix's rows can lie that the plans tell apart (16-byte rows for step 10's float4 loads and
// stores, 8-byte rows for step 12's paired stores of C): kPacked, leading dimension = row length, at a
// 256-byte aligned address; k16, k8: every row 16-byte, or 8- but not 16-byte, aligned (leading dimension
// rounded up to 4 floats where it fits in an int); kUnaligned: 4 bytes past kPacked's address.
enum RowAlignment { kPacked, k16, k8, kUnaligned, kRowAlignments };
struct Rows {
    int ld;
    int offset;  // floats past the aligned address
};
Rows rows_aligned(int alignment, int cols) {
    const long long padded = sgemm::round_up4(cols);
    const int ld = padded <= INT_MAX ? static_cast<int>(padded) : cols;
    return alignment == k16 ? Rows{ld, 0} : alignment == k8 ? Rows{ld, 2} : Rows{cols, alignment == kUnaligned};
}

// Operands at a 256-byte aligned address plus the offsets of `alignment_a`, `_b`, `_c` (rows_aligned): the
// plans depend on sizes, beta == 0 and these alignments only.
GemmArgs packed_args(Op op_a, Op op_b, int M, int N, int K, float beta, int alignment_a = kPacked,
                     int alignment_b = kPacked, int alignment_c = kPacked) {
    static float fake[4];  // never dereferenced: only the alignment of the addresses matters to a plan
    float* p = reinterpret_cast<float*>(reinterpret_cast<std::uintptr_t>(fake) & ~std::uintptr_t{255});
    const Rows a = rows_aligned(alignment_a, op_a == Op::kN ? K : M),
               b = rows_aligned(alignment_b, op_b == Op::kN ? N : K);
    const Rows c = rows_aligned(alignment_c, N);
    return args_of(op_a, op_b, M, N, K, 1.0f, p + a.offset, a.ld, p + b.offset, b.ld, beta, p + c.offset, c.ld);
}

// Empty when the current device can run the library's code: a device, and machine code for it in this build.
std::string unsupported_device() {
    int device = 0, major = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess) {
        cudaGetLastError();  // leave no sticky error from a failed query behind
        return "no CUDA device";
    }
    if (major < 8) return "compute capability below 8.0 (the kernels use cp.async)";
    cudaFuncAttributes attributes;
    if (cudaFuncGetAttributes(&attributes, sgemm_13_one_call_transpose) != cudaSuccess) {
        cudaGetLastError();
        return "this build has no code for this GPU (see CMAKE_CUDA_ARCHITECTURES)";
    }
    return "";
}

// An exception from the planner or a launch as a status: CUDA's own errors, and anything else (a shape
// a kernel cannot index, an unreadable calibration file) as not supported.
Status failed_with(const std::exception& e) {
    return fail(dynamic_cast<const CudaError*>(&e) ? Status::kCudaError : Status::kNotSupported, e.what());
}

}  // namespace

std::string status_string(Status status) {
    const char* name = status == Status::kSuccess ? "success"
        : status == Status::kInvalidValue         ? "invalid value"
        : status == Status::kNotSupported         ? "not supported"
        : status == Status::kCudaError            ? "CUDA error"
                                                  : "unknown status";
    return status == Status::kSuccess || last_failure.empty() ? name : std::string(name) + ": " + last_failure;
}

std::size_t gemm_workspace_bytes(Op op_a, Op op_b, int M, int N, int K) {
    if (M < 1 || N < 1 || K < 1 || !unsupported_device().empty()) return 0;
    // The most any call with these dimensions needs: the plans also depend on beta == 0 and on how the
    // rows of A, B and C are aligned (rows_aligned).
    std::size_t bytes = 0;
    try {
        for (float beta : {0.0f, 1.0f})
            for (int a_rows = 0; a_rows < kRowAlignments; ++a_rows)
                for (int b_rows = 0; b_rows < kRowAlignments; ++b_rows)
                    for (int c_rows = 0; c_rows < kRowAlignments; ++c_rows) {
                        const GemmArgs a = packed_args(op_a, op_b, M, N, K, beta, a_rows, b_rows, c_rows);
                        const Plan p = plan(a);
                        if (unrunnable(a, p).empty()) bytes = std::max(bytes, workspace_of(a, p));
                    }
    } catch (const std::exception& e) {
        failed_with(e);
        return 0;
    }
    return bytes;
}

Status gemm(Op op_a, Op op_b, int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb,
            float beta, float* C, int ldc, cudaStream_t stream, void* workspace, std::size_t workspace_bytes) {
    const GemmArgs args = args_of(op_a, op_b, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    if (std::string why = validate(args); !why.empty()) return fail(Status::kInvalidValue, why);
    if (std::string why = unsupported_device(); !why.empty()) return fail(Status::kNotSupported, why);
    try {
        const Plan p = plan(args);
        if (std::string why = unrunnable(args, p); !why.empty()) return fail(Status::kNotSupported, why);
        const std::size_t needed = workspace_of(args, p);
        if (workspace && workspace_bytes < needed)
            return fail(
                Status::kInvalidValue,
                "workspace of " + std::to_string(workspace_bytes) + " bytes, " + std::to_string(needed) + " needed");
        if (workspace && needed > 0 && reinterpret_cast<std::uintptr_t>(workspace) % 256 != 0)
            return fail(Status::kInvalidValue, "workspace not 256-byte aligned");
        void* owned = nullptr;
        if (!workspace && needed > 0) {
            check(cudaMallocAsync(&owned, needed, stream));
            workspace = owned;
        }
        try {
            run(args, p, workspace, stream);
        } catch (...) {
            if (owned) cudaFreeAsync(owned, stream);
            throw;
        }
        if (owned) check(cudaFreeAsync(owned, stream));
        return Status::kSuccess;
    } catch (const std::exception& e) {
        return failed_with(e);
    }
}

std::string gemm_describe(Op op_a, Op op_b, int M, int N, int K) {
    if (M < 1 || N < 1 || K < 1 || !unsupported_device().empty()) return "";
    try {
        const GemmArgs a = packed_args(op_a, op_b, M, N, K, 0.0f);
        return Gemm::can_implement(a).empty() ? Gemm::describe(a) : "";
    } catch (const std::exception&) {
        return "";
    }
}

}  // namespace sgemm

static const sgemm::Registration registration{
    Gemm{},
    {.number = 13,
     .name = "one_call",
     .idea = "one call for every shape and layout: step 14's int8 or step 12's TF32 tensor cores or step 10's "
             "FFMA family, whichever the GPU's own model says is fastest",
     .requirements = {.min_cc = 80},
     .precision = sgemm::Precision::kFp32,
     .any_layout = true,
     .composes = {10, 12, 14}}};
