// Hopper (sm_90) plumbing shared by steps 11, 12 and 14: mbarrier operations, the TMA tile load,
// and the host-side tensor map. Thin wrappers around single PTX instructions; what they are
// for, and the order in which a kernel uses them, is explained in docs/kernels/11_*.md.
//
// The PTX here (wgmma and setmaxnreg above all) exists for sm_90a alone, so this header compiles
// only there: a source that includes it must be listed in SGEMM_SM90A_SOURCES (CMakeLists.txt),
// which builds it for sm_90a whatever the project's architectures, and its registration must set
// Requirements::needs_sm90a so that the runner launches it on compute capability 9.0 only. Built
// for any other target it stops with #error instead of compiling wrappers that do nothing.
#pragma once

#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "hopper.cuh needs sm_90a (wgmma, setmaxnreg, TMA): add this source to SGEMM_SM90A_SOURCES in CMakeLists.txt"
#endif

#include <cuda.h>  // CUtensorMap and its enums (types only: libcuda is reached through the runtime)
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>

namespace sgemm {

// The 32-bit shared-memory address of a generic pointer into shared memory (the form PTX's
// shared::cta operands take).
__device__ __forceinline__ std::uint32_t smem_addr(const void* p) {
    return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

// [doc:mbarrier]
// ---- mbarrier: a 64-bit shared-memory object with an arrival count and a transaction count.
// A phase completes when the expected arrivals have arrived and the transaction bytes announced
// with expect_tx have landed; waiting threads then see the phase bit flip (parity 0, 1, 0, ...).

// Once, by one thread, before any use; `count` arrivals complete each phase.
__device__ __forceinline__ void mbarrier_init(std::uint64_t* bar, unsigned count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(count) : "memory");
}

// Makes the initialized barriers visible to the async proxy (TMA) and the other threads; the
// block synchronizes after it.
__device__ __forceinline__ void fence_barrier_init() {
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

// The mbarriers of a ring of `stages` shared-memory stages, by one thread, before the block's
// __syncthreads: full[s] completes when the producer's arrive.expect_tx and the bytes it announced
// have arrived; empty[s] when all `consumers` threads have arrived (they are done with stage s).
__device__ __forceinline__ void init_stage_barriers(std::uint64_t* full, std::uint64_t* empty, int stages,
                                                    unsigned consumers) {
    for (int s = 0; s < stages; ++s) {
        mbarrier_init(&full[s], 1);
        mbarrier_init(&empty[s], consumers);
    }
    fence_barrier_init();
}

// One arrival that also announces `bytes` more bytes of asynchronous copies into this phase.
__device__ __forceinline__ void mbarrier_arrive_expect_tx(std::uint64_t* bar, unsigned bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)), "r"(bytes) : "memory");
}

// One arrival (release semantics: this thread's earlier shared-memory reads are done first).
__device__ __forceinline__ void mbarrier_arrive(std::uint64_t* bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_addr(bar)) : "memory");
}

// One test of the phase with parity `parity`: true once it has completed (acquire: the data it
// guarded is visible afterwards). try_wait suspends the thread for a while in hardware before it
// reports failure, so a loop around it does not spin hot.
__device__ __forceinline__ bool mbarrier_try_wait(std::uint64_t* bar, unsigned parity) {
    unsigned done = 1;
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
        "selp.u32 %0, 1, 0, p;\n"
        "}\n"
        : "=r"(done)
        : "r"(smem_addr(bar)), "r"(parity)
        : "memory");
    return done != 0;
}

// How many failed try_waits a debug build allows before it traps (each suspends the thread for
// up to a few microseconds in hardware: far longer than any stage of a correct pipeline takes). A
// phase that never completes (bytes announced with expect_tx that no copy delivers, a missing
// arrival) would otherwise hang the GPU instead of failing.
inline constexpr long long kMbarrierDebugTries = 1ll << 26;

// Blocks until the phase with parity `parity` has completed. Release builds spin on try_wait; a
// debug build (NDEBUG undefined) traps with a message after kMbarrierDebugTries failed tries.
__device__ __forceinline__ void mbarrier_wait(std::uint64_t* bar, unsigned parity) {
#ifdef NDEBUG
    asm volatile(
        "{\n"
        ".reg .pred done;\n"
        "wait_%=:\n"
        "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
        "@!done bra wait_%=;\n"
        "}\n" ::"r"(smem_addr(bar)),
        "r"(parity)
        : "memory");
#else
    for (long long tries = 0; !mbarrier_try_wait(bar, parity);) {
        if (++tries == kMbarrierDebugTries) {
            printf("sgemm: mbarrier wait (parity %u) timed out in block %d thread %d\n", parity, blockIdx.x,
                   threadIdx.x);
            __trap();
        }
    }
#endif
}
// [/doc:mbarrier]

// Makes this thread's generic-proxy writes to shared memory (st.shared) visible to the async
// proxy (wgmma, TMA) that reads them next.
__device__ __forceinline__ void fence_proxy_async_shared() {
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

// A barrier among `count` threads (whole warps) on hardware barrier `id` (0 is __syncthreads').
__device__ __forceinline__ void named_barrier_sync(unsigned id, unsigned count) {
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(count) : "memory");
}

// Arrives on hardware barrier `id` without waiting: with named_barrier_sync of the other threads,
// `count` in all, a one-way hand-over (what this thread wrote to shared memory before it is visible
// to the threads that sync). Not .aligned: the threads of a warp may arrive from different branches.
__device__ __forceinline__ void named_barrier_arrive(unsigned id, unsigned count) {
    asm volatile("barrier.cta.arrive %0, %1;" ::"r"(id), "r"(count) : "memory");
}

// [doc:tma]
// ---- TMA: one instruction copies a whole box of a 2-D tensor from global into shared memory,
// zero-filling the parts outside the tensor, and counts its bytes on `bar` (complete_tx).
// x is the coordinate along the contiguous dimension, y along the rows; both may run past the end.
__device__ __forceinline__ void tma_load_2d(void* dst, const CUtensorMap* map, std::uint64_t* bar, int x, int y) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], "
        "[%2];" ::"r"(smem_addr(dst)),
        "l"(map), "r"(smem_addr(bar)), "r"(x), "r"(y)
        : "memory");
}

// Starts fetching a tensor map (a __grid_constant__ kernel parameter) into the TMA unit's cache.
__device__ __forceinline__ void prefetch_tensor_map(const CUtensorMap* map) {
    asm volatile("prefetch.tensormap [%0];" ::"l"(map) : "memory");
}
// [/doc:tma]

// [doc:setmaxnreg]
// ---- setmaxnreg (sm_90a): a warpgroup (4 warps, all of which execute it) gives registers back
// to the SM's pool (dec) or takes them from it (inc), so that the warps which need registers
// can hold more than the per-thread share fixed at launch. Counts are multiples of 8 in 24..256.
template <unsigned kRegs>
__device__ __forceinline__ void setmaxnreg_dec() {
    static_assert(kRegs % 8 == 0 && kRegs >= 24 && kRegs <= 256, "setmaxnreg takes a multiple of 8 in 24..256");
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(kRegs));
}
template <unsigned kRegs>
__device__ __forceinline__ void setmaxnreg_inc() {
    static_assert(kRegs % 8 == 0 && kRegs >= 24 && kRegs <= 256, "setmaxnreg takes a multiple of 8 in 24..256");
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(kRegs));
}

// ---- wgmma (sm_90a): a warpgroup-wide asynchronous matrix multiply-accumulate on the tensor
// cores, operands read from shared memory through 64-bit matrix descriptors, D in registers.

// Orders this warpgroup's register and shared-memory accesses before the wgmma that follow.
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }

// Closes the wgmma issued since the last commit into one group.
__device__ __forceinline__ void wgmma_commit_group() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }

// Waits until at most kPending committed groups are still running (their reads of shared
// memory and writes of D are complete for the others).
template <int kPending>
__device__ __forceinline__ void wgmma_wait_group() {
    asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(kPending) : "memory");
}

// [doc:wgmma-tf32]
// D (64 x 128, fp32, 64 registers per thread) = A (64 x 8) * B (8 x 128) + (accumulate ? D : 0),
// A and B tf32 from shared memory, both K-major (the only layout wgmma accepts for tf32). Register
// i of thread t (of the warpgroup's 128) holds D[16 (t / 32) + (t % 32) / 4 + 8 (i % 4 / 2)][8 (i / 4) + 2 (t % 4) + i % 2].
__device__ __forceinline__ void wgmma_m64n128k8_tf32(float (&d)[64], std::uint64_t desc_a, std::uint64_t desc_b,
                                                     int accumulate) {
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "setp.ne.b32 p, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,"
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31,"
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47,"
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
        "}, %64, %65, p, 1, 1;\n"
        "}\n"
        // clang-format off: 8 accumulator registers a row
        :
          "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
        // clang-format on
        : "l"(desc_a), "l"(desc_b), "r"(accumulate));
}

// [doc:wgmma-s8]
// D (64 x 256, int32, 128 registers per thread) = A (64 x 32) * B (32 x 256) + (accumulate ? D : 0),
// A and B signed 8-bit integers from shared memory, both K-major (the only layout wgmma accepts for
// 8-bit types); the products and their sums are exact (no saturation: .satfinite is not asked for).
// Register i of thread t holds D[16 (t / 32) + (t % 32) / 4 + 8 (i % 4 / 2)][8 (i / 4) + 2 (t % 4) + i % 2],
// the layout of the tf32 form above, over 256 columns.
__device__ __forceinline__ void wgmma_m64n256k32_s8(int (&d)[128], std::uint64_t desc_a, std::uint64_t desc_b,
                                                    int accumulate) {
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "setp.ne.b32 p, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k32.s32.s8.s8 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,"
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31,"
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47,"
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63,"
        "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79,"
        "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95,"
        "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111,"
        "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
        "}, %128, %129, p;\n"
        "}\n"
        // clang-format off: 8 accumulator registers a row
        :
          "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]),
          "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]),
          "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]),
          "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31]),
          "+r"(d[32]), "+r"(d[33]), "+r"(d[34]), "+r"(d[35]), "+r"(d[36]), "+r"(d[37]), "+r"(d[38]), "+r"(d[39]),
          "+r"(d[40]), "+r"(d[41]), "+r"(d[42]), "+r"(d[43]), "+r"(d[44]), "+r"(d[45]), "+r"(d[46]), "+r"(d[47]),
          "+r"(d[48]), "+r"(d[49]), "+r"(d[50]), "+r"(d[51]), "+r"(d[52]), "+r"(d[53]), "+r"(d[54]), "+r"(d[55]),
          "+r"(d[56]), "+r"(d[57]), "+r"(d[58]), "+r"(d[59]), "+r"(d[60]), "+r"(d[61]), "+r"(d[62]), "+r"(d[63]),
          "+r"(d[64]), "+r"(d[65]), "+r"(d[66]), "+r"(d[67]), "+r"(d[68]), "+r"(d[69]), "+r"(d[70]), "+r"(d[71]),
          "+r"(d[72]), "+r"(d[73]), "+r"(d[74]), "+r"(d[75]), "+r"(d[76]), "+r"(d[77]), "+r"(d[78]), "+r"(d[79]),
          "+r"(d[80]), "+r"(d[81]), "+r"(d[82]), "+r"(d[83]), "+r"(d[84]), "+r"(d[85]), "+r"(d[86]), "+r"(d[87]),
          "+r"(d[88]), "+r"(d[89]), "+r"(d[90]), "+r"(d[91]), "+r"(d[92]), "+r"(d[93]), "+r"(d[94]), "+r"(d[95]),
          "+r"(d[96]), "+r"(d[97]), "+r"(d[98]), "+r"(d[99]), "+r"(d[100]), "+r"(d[101]), "+r"(d[102]), "+r"(d[103]),
          "+r"(d[104]), "+r"(d[105]), "+r"(d[106]), "+r"(d[107]), "+r"(d[108]), "+r"(d[109]), "+r"(d[110]), "+r"(d[111]),
          "+r"(d[112]), "+r"(d[113]), "+r"(d[114]), "+r"(d[115]), "+r"(d[116]), "+r"(d[117]), "+r"(d[118]), "+r"(d[119]),
          "+r"(d[120]), "+r"(d[121]), "+r"(d[122]), "+r"(d[123]), "+r"(d[124]), "+r"(d[125]), "+r"(d[126]), "+r"(d[127])
        // clang-format on
        : "l"(desc_a), "l"(desc_b), "r"(accumulate));
}

// ---- host and device: a TMA box of box_rows x box_cols elements of `element_bytes` each (4: float,
// 1: int8). A kernel announces box.bytes() to the mbarrier (expect_tx) for each copy and the host
// builds the tensor map from the same object, so the two cannot disagree (a mismatch would leave the
// phase incomplete: a hang).
struct TmaBox {
    int rows, cols;
    int element_bytes = 4;
    __host__ __device__ constexpr unsigned bytes() const {
        return static_cast<unsigned>(rows * cols) * static_cast<unsigned>(element_bytes);
    }
};

// ---- host: the tensor map of a row-major matrix `rows` x `cols` with leading dimension `ld`
// (elements), read in boxes of `box`, whose element_bytes says the type: 4 float, 1 int8. TMA
// needs a 16-byte aligned base and a row pitch that is a multiple of 16 bytes; box.cols elements a
// multiple of 16 bytes and at most the swizzle span when swizzled; box sides at most 256. Throws
// sgemm::CudaError when the driver refuses.
CUtensorMap make_tensor_map_2d(const void* base, long long rows, long long cols, long long ld, TmaBox box,
                               CUtensorMapSwizzle swizzle);

}  // namespace sgemm
