// The tuned baseline: cuBLASLt's FP32 matmul running, for each problem, the fastest of the algorithms
// its heuristic proposes, each timed on that problem. What performance engineers compare against (a
// search over cuBLASLt's algorithms rather than cublasSgemm's one pick); like cuBLAS (kernel 0) a
// yardstick, not a lesson. Numbered kTunedBaseline (registry.h).
//
// Tuning: on the first launch for a (device, shape, layout, leading dimensions, alignments, beta == 0),
// every algorithm the heuristic returns (up to kRequested, FFMA ones only) runs kTuneWarmup + kTuneReps
// times back to back on the caller's buffers and stream, timed with CUDA events around each launch
// (L2 warm); the one of least median time is kept for every later launch. The pick is made by timing,
// so another process may pick another algorithm, whose sums run in another order: results are
// bitwise reproducible within a process, not between processes. Every reduction scheme cuBLASLt has is
// ordered (cublasLt.h: in-place partial sums are sequenced by counters, the others summed in a separate
// step), so a chosen algorithm itself is deterministic; describe() names its split-K and reduction.
#include <cublasLt.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "common/check.h"
#include "common/cublas_pieces.h"  // cublas_op
#include "common/registry.h"

namespace {

// cuBLAS's recommended workspace on Hopper (cublasSetWorkspace): room for split-K partial sums.
constexpr std::size_t kLtWorkspaceBytes = 32ull << 20;
constexpr int kRequested = 16;  // algorithms asked of the heuristic
constexpr int kTuneWarmup = 1, kTuneReps = 5;

cublasLtHandle_t handle() {
    // One per device, never destroyed (as kernels/00_cublas.cu's handle: no teardown at exit).
    return sgemm::per_device<cublasLtHandle_t>([](int) {
        cublasLtHandle_t created;
        sgemm::check(cublasLtCreate(&created));
        return created;
    });
}

// The alignment cuBLASLt may assume of an operand: the largest power of two, up to 256 bytes, dividing
// both its address and its row pitch (every row starts at address + i * ld floats). The heuristic
// assumes 256 unless told, and would propose algorithms an unaligned view cannot run.
std::uint32_t alignment(const void* p, int ld) {
    const std::uintptr_t bits = reinterpret_cast<std::uintptr_t>(p) | (std::uintptr_t(ld) * sizeof(float)) | 256;
    return static_cast<std::uint32_t>(bits & (~bits + 1));
}

// What the heuristic and the timing depend on: one tuning each.
struct Key {
    int device, M, N, K, lda, ldb, ldc;
    sgemm::Op op_a, op_b;
    std::uint32_t align_a, align_b, align_c;
    bool beta_zero;
    auto operator<=>(const Key&) const = default;
};

// An algorithm the heuristic proposed. A named struct: nvcc 13's front end fails (internal error) on a
// std::vector of cuBLASLt's unnamed typedef'd structs.
struct Proposal {
    cublasLtMatmulAlgo_t algo;
};

// One problem's descriptors (the opaque structs, initialized in place: nothing to destroy), what the
// heuristic proposed, and the pick.
struct Tuning {
    cublasLtMatmulDescOpaque_t op;
    // cuBLASLt's operands as it sees the row-major call, column-major C^T = op(B)^T op(A)^T: its A is our
    // B, its B our A, and C is N x M.
    cublasLtMatrixLayoutOpaque_t first, second, c;
    int proposed = 0;                                    // algorithms the heuristic returned
    std::vector<Proposal> algos;                         // those that compute with FFMA, in its order
    std::string unavailable;                             // why nothing can run ("" when something can)
    int chosen = -1;                                     // index into algos of the fastest, once timed
    int timed = 0;                                       // how many of algos launched when timed
};

std::mutex cache_mutex;  // guards the cache and every tuning in it, launches included
std::map<Key, Tuning> cache;

// The heuristic's proposals for `a`, filtered to FFMA: FP32 compute (CUBLAS_COMPUTE_32F, not _FAST_TF32)
// asks for no tensor cores, and the filter keeps it so under any library setting (FP32 emulation on
// BF16 tensor cores, say).
void propose(Tuning& t, const sgemm::GemmArgs& a, const Key& key) {
    using sgemm::check;
    check(cublasLtMatmulDescInit(&t.op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    const cublasOperation_t op_first = sgemm::cublas_op(a.op_b), op_second = sgemm::cublas_op(a.op_a);
    check(cublasLtMatmulDescSetAttribute(&t.op, CUBLASLT_MATMUL_DESC_TRANSA, &op_first, sizeof op_first));
    check(cublasLtMatmulDescSetAttribute(&t.op, CUBLASLT_MATMUL_DESC_TRANSB, &op_second, sizeof op_second));
    // Each operand as stored, read column-major: a row-major matrix of r rows and c columns is c x r.
    // B: K x N (N x K transposed); A: M x K (K x M transposed); C: M x N.
    const bool b_n = a.op_b == sgemm::Op::kN, a_n = a.op_a == sgemm::Op::kN;
    check(cublasLtMatrixLayoutInit(&t.first, CUDA_R_32F, b_n ? a.N : a.K, b_n ? a.K : a.N, a.ldb));
    check(cublasLtMatrixLayoutInit(&t.second, CUDA_R_32F, a_n ? a.K : a.M, a_n ? a.M : a.K, a.lda));
    check(cublasLtMatrixLayoutInit(&t.c, CUDA_R_32F, a.N, a.M, a.ldc));

    cublasLtMatmulPreferenceOpaque_t pref;
    check(cublasLtMatmulPreferenceInit(&pref));
    const std::uint64_t workspace = kLtWorkspaceBytes;
    check(cublasLtMatmulPreferenceSetAttribute(&pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace,
                                               sizeof workspace));
    for (const auto [attribute, bytes] : {std::pair{CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, key.align_b},
                                          std::pair{CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, key.align_a},
                                          std::pair{CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, key.align_c},
                                          std::pair{CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, key.align_c}})
        check(cublasLtMatmulPreferenceSetAttribute(&pref, attribute, &bytes, sizeof bytes));

    std::array<cublasLtMatmulHeuristicResult_t, kRequested> results{};
    // A refusal (no algorithm, an extent cuBLASLt does not take) makes the baseline N/A on this problem,
    // with the status as the reason: not an error of the run.
    const cublasStatus_t status = cublasLtMatmulAlgoGetHeuristic(handle(), &t.op, &t.first, &t.second, &t.c, &t.c,
                                                                 &pref, kRequested, results.data(), &t.proposed);
    if (status != CUBLAS_STATUS_SUCCESS) {
        t.proposed = 0;
        t.unavailable = std::string("cuBLASLt's heuristic: ") + cublasGetStatusName(status);
        return;
    }
    for (int i = 0; i < t.proposed; ++i) {
        std::uint64_t flags = 0;
        std::size_t written = 0;
        if (results[i].state == CUBLAS_STATUS_SUCCESS &&
            cublasLtMatmulAlgoCapGetAttribute(&results[i].algo, CUBLASLT_ALGO_CAP_NUMERICAL_IMPL_FLAGS, &flags,
                                              sizeof flags, &written) == CUBLAS_STATUS_SUCCESS &&
            (flags & CUBLASLT_NUMERICAL_IMPL_FLAGS_OP_TYPE_MASK) == CUBLASLT_NUMERICAL_IMPL_FLAGS_FMA)
            t.algos.push_back({results[i].algo});
    }
    if (t.algos.empty())
        t.unavailable = t.proposed == 0 ? "cuBLASLt's heuristic proposes no algorithm"
                                        : "none of the " + std::to_string(t.proposed) +
                " algorithms cuBLASLt's heuristic proposes computes with FFMA";
}

// The tuning of `a`'s problem, made (heuristic only) on first use. Called with cache_mutex held; throws
// CudaError where there is no usable GPU, keeping nothing.
Tuning& tuning_of(const sgemm::GemmArgs& a) {
    int device = 0;
    sgemm::check(cudaGetDevice(&device));
    const Key key{device,
                  a.M,
                  a.N,
                  a.K,
                  a.lda,
                  a.ldb,
                  a.ldc,
                  a.op_a,
                  a.op_b,
                  alignment(a.A, a.lda),
                  alignment(a.B, a.ldb),
                  alignment(a.C, a.ldc),
                  a.beta == 0.0f};
    const auto [it, added] = cache.try_emplace(key);
    if (added) {
        try {
            propose(it->second, a, key);
        } catch (...) {
            cache.erase(it);
            throw;
        }
    }
    return it->second;
}

cublasStatus_t matmul(Tuning& t, const sgemm::GemmArgs& a, const cublasLtMatmulAlgo_t& algo, void* workspace,
                      cudaStream_t stream) {
    // In place, C as both input and output; with beta == 0 cuBLASLt does not read C.
    return cublasLtMatmul(handle(), &t.op, &a.alpha, a.B, &t.first, a.A, &t.second, &a.beta, a.C, &t.c, a.C, &t.c,
                          &algo, workspace, kLtWorkspaceBytes, stream);
}

// Times every proposed algorithm on `a` and keeps the fastest. The timing launches rewrite C; with
// beta != 0 they also read it, so its M x N view is saved in the workspace after cuBLASLt's part and put
// back before the launch that counts.
void tune(Tuning& t, const sgemm::GemmArgs& a, void* workspace, cudaStream_t stream) {
    using sgemm::check;
    void* saved = static_cast<char*>(workspace) + kLtWorkspaceBytes;
    const std::size_t row_bytes = std::size_t(a.N) * sizeof(float), pitch = std::size_t(a.ldc) * sizeof(float);
    if (a.beta != 0.0f)
        check(cudaMemcpy2DAsync(saved, row_bytes, a.C, pitch, row_bytes, a.M, cudaMemcpyDeviceToDevice, stream));
    sgemm::Event start, stop;
    float best = 0;
    cublasStatus_t failure = CUBLAS_STATUS_SUCCESS;
    t.timed = 0;
    for (std::size_t i = 0; i < t.algos.size(); ++i) {
        // An algorithm that refuses to launch is left out (and named by the error if all do).
        if (const cublasStatus_t s = matmul(t, a, t.algos[i].algo, workspace, stream); s != CUBLAS_STATUS_SUCCESS) {
            failure = s;
            continue;
        }
        for (int w = 1; w < kTuneWarmup; ++w) check(matmul(t, a, t.algos[i].algo, workspace, stream));
        std::array<float, kTuneReps> ms{};
        for (float& m : ms) {
            check(cudaEventRecord(start.e, stream));
            check(matmul(t, a, t.algos[i].algo, workspace, stream));
            check(cudaEventRecord(stop.e, stream));
            check(cudaEventSynchronize(stop.e));
            check(cudaEventElapsedTime(&m, start.e, stop.e));
        }
        std::nth_element(ms.begin(), ms.begin() + kTuneReps / 2, ms.end());
        const float median = ms[kTuneReps / 2];
        ++t.timed;
        // Ties go to the heuristic's earlier proposal.
        if (t.chosen < 0 || median < best) t.chosen = static_cast<int>(i), best = median;
    }
    if (a.beta != 0.0f)
        check(cudaMemcpy2DAsync(a.C, pitch, saved, row_bytes, row_bytes, a.M, cudaMemcpyDeviceToDevice, stream));
    if (t.chosen < 0) check(failure);
}

template <typename T>
T config(const cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoConfigAttributes_t attribute) {
    T value{};
    std::size_t written = 0;
    sgemm::check(cublasLtMatmulAlgoConfigGetAttribute(&algo, attribute, &value, sizeof value, &written));
    return value;
}

// "algo 21 (tile id 20, stages id 15, split-K 1, CTA swizzle 0)": the ids are cublasLt.h's enums
// (cublasLtMatmulTile_t, cublasLtMatmulStages_t).
std::string algo_text(const cublasLtMatmulAlgo_t& algo) {
    std::string out = "algo " + std::to_string(config<std::int32_t>(algo, CUBLASLT_ALGO_CONFIG_ID)) + " (tile id " +
        std::to_string(config<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_TILE_ID)) + ", stages id " +
        std::to_string(config<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_STAGES_ID)) + ", split-K ";
    const std::int32_t splits = config<std::int32_t>(algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM);
    out += std::to_string(splits);
    if (splits > 1) switch (config<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME)) {
            case CUBLASLT_REDUCTION_SCHEME_INPLACE: out += " summed in place in C, in order (counters)"; break;
            case CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE:
            case CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE:
                out += " summed from fp32 partials in the workspace, a separate step";
                break;
            default: out += " (reduction scheme unknown)"; break;
        }
    return out + ", CTA swizzle " + std::to_string(config<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING)) +
        ")";
}

struct Gemm {
    static void launch(const sgemm::GemmArgs& args, void* workspace, cudaStream_t stream) {
        const std::lock_guard lock(cache_mutex);
        Tuning& t = tuning_of(args);
        if (!t.unavailable.empty()) throw sgemm::CudaError("cublaslt: N/A on this problem: " + t.unavailable);
        if (t.chosen < 0) tune(t, args, workspace, stream);
        sgemm::check(matmul(t, args, t.algos[t.chosen].algo, workspace, stream));
    }

    // cuBLASLt's workspace, and room to keep C's view while the first launch times the algorithms (beta
    // != 0 only: with beta == 0 nothing of C is read).
    static std::size_t workspace_bytes(const sgemm::GemmArgs& a) {
        return kLtWorkspaceBytes +
            (a.beta != 0.0f ? sgemm::align256(std::size_t(a.M) * std::size_t(a.N) * sizeof(float)) : 0);
    }

    static std::string can_implement(const sgemm::GemmArgs& a) {
        const std::lock_guard lock(cache_mutex);
        return tuning_of(a).unavailable;
    }

    static std::string describe(const sgemm::GemmArgs& a) {
        auto op = [](sgemm::Op o) { return o == sgemm::Op::kT ? "OP_T" : "OP_N"; };
        std::string out = std::string("cublasLtMatmul(") + op(a.op_b) + ", " + op(a.op_a) +
            ") on (B, A), CUBLAS_COMPUTE_32F, " + std::to_string(kLtWorkspaceBytes >> 20) + " MiB workspace: ";
        const std::lock_guard lock(cache_mutex);
        const Tuning& t = tuning_of(a);
        if (!t.unavailable.empty()) return out + "N/A (" + t.unavailable + ")";
        // "the 8 FFMA algorithms of the 8 cuBLASLt's heuristic proposes"
        const std::string algos = "the " + std::to_string(t.algos.size()) + " FFMA algorithms of the " +
            std::to_string(t.proposed) + " cuBLASLt's heuristic proposes";
        if (t.chosen < 0)
            return out + "not timed yet (its first launch times " + algos +
                "); the heuristic's first: " + algo_text(t.algos.front().algo);
        const bool all_ran = t.timed == static_cast<int>(t.algos.size());
        return out + algo_text(t.algos[t.chosen].algo) + ", the fastest of " + algos +
            (all_ran ? "" : " (" + std::to_string(t.timed) + " launched)") + ", timed on this problem (median of " +
            std::to_string(kTuneReps) + " launches, L2 warm; picked by timing: another process may pick another)";
    }
};

}  // namespace

static const sgemm::Registration registration{
    Gemm{},
    {.number = sgemm::kTunedBaseline,
     .name = "cublaslt",
     .idea = "cuBLASLt in FP32 (no TF32), the fastest of its heuristic's algorithms timed per problem: the tuned "
             "baseline",
     .any_layout = true}};
