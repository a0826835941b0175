// Step 06: vectorized memory access. The tiling of step 05 (128 x 128 x 8, 256
// threads, 8 x 8 outputs each), but global loads and stores move 16 bytes per
// instruction (float4: LDG.E.128 / STG.E.128), and A is stored TRANSPOSED into
// shared memory as it is loaded (As[BK][BM]): a thread's A fragment for one k is
// then contiguous, like its B fragment, and both are read with 128-bit shared
// loads (LDS.128). The interleaving of step 05 now works in units of 4 floats,
// and As rows are padded by 4 floats so the transposed stores are conflict-free.
// See docs/kernels/06_vectorized.md.
#include "common/check.h"
#include "common/registry.h"
#include "common/tile.cuh"

namespace {

// kCheckEdges = false drops all edge handling: launch() picks that instantiation
// for shapes made of whole tiles.
template <int BM, int BN, int BK, int TM, int TN, bool kCheckEdges>
__global__ void __launch_bounds__((BM / TM) * (BN / TN), 2)
// [doc:vec-ok-param]
    sgemm_06_vectorized(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb, float beta,
                        float* C, int ldc, bool vec_ok) {
    // [/doc:vec-ok-param]
    constexpr int kThreadsM = BM / TM;  // the threads form a kThreadsM x kThreadsN grid
    constexpr int kThreadsN = BN / TN;
    constexpr int kThreads = kThreadsM * kThreadsN;
    // [doc:kpad]
    constexpr int kPad = 4;  // As row padding: conflict-free transposed stores, rows stay 16-byte aligned
    // [/doc:kpad]
    static_assert(BM % TM == 0 && BN % TN == 0, "the thread tiles cover the block tile exactly");
    // [doc:static-asserts]
    static_assert(TM % 4 == 0 && TN % 4 == 0, "thread tiles are read from shared memory as float4s");
    static_assert(BK % 4 == 0 && kThreads % (BK / 4) == 0 && BM % (kThreads / (BK / 4)) == 0,
                  "one pass of the block copies whole rows of the A tile as float4s, and the passes cover it evenly");
    static_assert(BN % 4 == 0 && kThreads % (BN / 4) == 0 && BK % (kThreads / (BN / 4)) == 0,
                  "one pass of the block copies whole rows of the B tile as float4s, and the passes cover it evenly");
    // [/doc:static-asserts]
    constexpr int kALoads = BM * BK / (4 * kThreads);  // A float4s each thread copies per k-tile
    constexpr int kBLoads = BK * BN / (4 * kThreads);  // B float4s each thread copies per k-tile

    // [doc:smem-tiles]
    __shared__ alignas(16) float As[BK][BM + kPad];  // transposed: As[k][m] = A[m][k]
    __shared__ alignas(16) float Bs[BK][BN];

    const int tid = threadIdx.x;
    const int block_row = sgemm::tile_y() * BM;  // first row of this block's C tile
    const int block_col = blockIdx.x * BN;       // first column of this block's C tile
    // [doc:thread-ownership]
    // Thread (ty, tx) owns rows 4 * ty + i * kThreadsM + {0..3} and columns
    // 4 * tx + j * kThreadsN + {0..3} (i, j multiples of 4): interleaved float4s,
    // so that lanes read consecutive 16-byte words of shared memory.
    const int tx = tid % kThreadsN;
    const int ty = tid / kThreadsN;
    // [/doc:thread-ownership]
    // [doc:copy-mapping]
    // Which float4 this thread copies into shared memory (pass p adds p * kThreads / (BK / 4) rows).
    const int a_row = tid / (BK / 4), a_col = tid % (BK / 4) * 4;
    const int b_row = tid / (BN / 4), b_col = tid % (BN / 4) * 4;

    // [doc:interior]
    // Uniform per block: interior blocks of 16-byte-aligned matrices never test an index against M or N.
    const bool interior = vec_ok && block_row + BM <= M && block_col + BN <= N;

    float acc[TM][TN] = {};
    float a_frag[TM];  // a column of the A tile: TM values, each reused TN times
    float b_frag[TN];  // a row of the B tile: TN values, each reused TM times

    for (int k0 = 0; k0 < K; k0 += BK) {
        // [doc:tile-load]
        // ---- global -> registers. One uniform branch per k-tile: full tiles load
        // float4s without predicates; edge tiles pad with zeros outside A and B.
        // [doc:full]
        const bool full = !kCheckEdges || (interior && k0 + BK <= K);
        // [/doc:full]
        float4 a_ld[kALoads], b_ld[kBLoads];
        if (full) {
#pragma unroll
            for (int p = 0; p < kALoads; ++p)
                a_ld[p] = *reinterpret_cast<const float4*>(
                    &A[static_cast<size_t>(block_row + a_row + p * (kThreads / (BK / 4))) * lda + k0 + a_col]);
#pragma unroll
            for (int p = 0; p < kBLoads; ++p)
                b_ld[p] = *reinterpret_cast<const float4*>(
                    &B[static_cast<size_t>(k0 + b_row + p * (kThreads / (BN / 4))) * ldb + block_col + b_col]);
        } else {
#pragma unroll
            for (int p = 0; p < kALoads; ++p)
                a_ld[p] = sgemm::load4_or_zero(A, lda, block_row + a_row + p * (kThreads / (BK / 4)), k0 + a_col, M, K,
                                               vec_ok);
#pragma unroll
            for (int p = 0; p < kBLoads; ++p)
                b_ld[p] = sgemm::load4_or_zero(B, ldb, k0 + b_row + p * (kThreads / (BN / 4)), block_col + b_col, K, N,
                                               vec_ok);
        }
        // [/doc:tile-load]
        // [doc:smem-store]
        // ---- registers -> shared memory. A is transposed on the way: four 4-byte
        // stores into four rows of As. B is copied as it is: one 16-byte store.
#pragma unroll
        for (int p = 0; p < kALoads; ++p) {
            const int m = a_row + p * (kThreads / (BK / 4));
            // [doc:a-transposed-store]
            As[a_col + 0][m] = a_ld[p].x;
            As[a_col + 1][m] = a_ld[p].y;
            As[a_col + 2][m] = a_ld[p].z;
            As[a_col + 3][m] = a_ld[p].w;
            // [/doc:a-transposed-store]
        }
#pragma unroll
        for (int p = 0; p < kBLoads; ++p)
            // [doc:b-store]
            *reinterpret_cast<float4*>(&Bs[b_row + p * (kThreads / (BN / 4))][b_col]) = b_ld[p];
            // [/doc:b-store]
        // [/doc:smem-store]
        __syncthreads();

        // [doc:inner-loop]
        // ---- compute: per k, (TM + TN) / 4 LDS.128, TM * TN FMAs (an outer product).
#pragma unroll
        for (int k = 0; k < BK; ++k) {
#pragma unroll
            for (int i = 0; i < TM; i += 4) {
                // [doc:a-fragment-load]
                const float4 a = *reinterpret_cast<const float4*>(&As[k][4 * ty + i * kThreadsM]);
                // [/doc:a-fragment-load]
                a_frag[i + 0] = a.x, a_frag[i + 1] = a.y, a_frag[i + 2] = a.z, a_frag[i + 3] = a.w;
            }
#pragma unroll
            for (int j = 0; j < TN; j += 4) {
                // [doc:b-fragment-load]
                const float4 b = *reinterpret_cast<const float4*>(&Bs[k][4 * tx + j * kThreadsN]);
                // [/doc:b-fragment-load]
                b_frag[j + 0] = b.x, b_frag[j + 1] = b.y, b_frag[j + 2] = b.z, b_frag[j + 3] = b.w;
            }
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += a_frag[i] * b_frag[j];
        }
        __syncthreads();  // everyone is done with this tile before it is overwritten
        // [/doc:inner-loop]
    }

    // [doc:epilogue]
    // ---- epilogue: C = alpha * acc + beta * C as float4s, unchecked in interior blocks.
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int row = block_row + 4 * ty + (i / 4) * 4 * kThreadsM + i % 4;
#pragma unroll
        for (int j = 0; j < TN; j += 4) {
            const int col = block_col + 4 * tx + j * kThreadsN;
            const float4 out = make_float4(acc[i][j + 0], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]);
            // [doc:epilogue-store]
            if (!kCheckEdges || interior)
                sgemm::store_c4_unchecked(C, ldc, row, col, out, alpha, beta);
            else
                sgemm::store_c4(C, ldc, row, col, M, N, out, alpha, beta, vec_ok);
            // [/doc:epilogue-store]
        }
    }
    // [/doc:epilogue]
}

constexpr int kBM = 128, kBN = 128, kBK = 8, kTM = 8, kTN = 8;  // 256 threads, 8 x 8 outputs each

// [doc:vec-ok]
// float4 access needs every row start of A, B and C 16-byte aligned; otherwise scalar loads and stores.
bool is_vec_ok(const sgemm::GemmArgs& a) { return sgemm::all_rows_16b_aligned(a); }
bool is_whole_aligned_tiles(const sgemm::GemmArgs& a) {
    return is_vec_ok(a) && sgemm::is_whole_tiles<kBM, kBN, kBK>(a);
}

// kAlwaysCheck = true runs the checked kernel on every shape (tuning variant 106),
// so that what edge handling costs stays measurable.
// [doc:launch]
template <bool kAlwaysCheck>
struct Gemm {
    static void launch(const sgemm::GemmArgs& args, void* /*workspace*/, cudaStream_t stream) {
        const auto& [M, N, K, alpha, beta, A, lda, B, ldb, C, ldc, op_a, op_b] = args;
        const bool vec_ok = is_vec_ok(args);
        // Shapes made of whole tiles run an instantiation compiled without any edge
        // handling: ptxas schedules its mainloop better than that of the checked kernel,
        // even where the checked kernel takes its fast path (docs/kernels/06_vectorized.md, "Edge
        // handling"). Other shapes run the checked kernel: interior blocks still load unpredicated.
        const bool whole_tiles = !kAlwaysCheck && is_whole_aligned_tiles(args);
        const auto kernel = whole_tiles ? sgemm_06_vectorized<kBM, kBN, kBK, kTM, kTN, false>
                                        : sgemm_06_vectorized<kBM, kBN, kBK, kTM, kTN, true>;
        const dim3 block((kBM / kTM) * (kBN / kTN));
        const dim3 grid = sgemm::tile_grid(sgemm::ceil_div(N, kBN), sgemm::ceil_div(M, kBM));
        sgemm::launch_checked(kernel, grid, block, 0, stream, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, vec_ok);
    }

    static std::string describe(const sgemm::GemmArgs& args) {
        return std::string("128x128x8 tile, 8x8 outputs per thread") +
            (!kAlwaysCheck && is_whole_aligned_tiles(args) ? ", no edge checks (whole tiles)"
                 : is_vec_ok(args)                         ? ", edge-checked"
                                                           : ", edge-checked, scalar (rows not 16-byte aligned)");
    }

    static std::string can_implement(const sgemm::GemmArgs& a) { return sgemm::fits_int_tiles<kBM, kBN, kBK>(a); }
};

}  // namespace

static const sgemm::Registration registration{
    Gemm<false>{},
    {.number = 6,
     .name = "vectorized",
     .idea = "step 05 with float4 global loads/stores and A transposed in shared memory for LDS.128",
     .sass = {.required = {"LDG.128", "LDS.128"}}}};
#ifdef SGEMM_TUNING
// [doc:checked-variant]
static const sgemm::Registration registration_checked{
    Gemm<true>{},
    {.number = 106,
     .name = "vectorized_checked",
     .idea = "step 06 always through its edge-checked kernel (the cost of edge handling)"}};
// [/doc:checked-variant]
#endif
