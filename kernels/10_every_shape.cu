// Step 10: every shape. Step 09's mainloop is fast only where its one 128 x 256 tile fills the
// GPU and the shape has the FMAs to feed it: 4096^3 has 512 tiles for 132 SMs, 1024^3 has 32 and
// 256 x 256 x 16384 has 2; 46341 x 46341 x 2 is nothing but writing C, 24 x 24576 x 4096 nothing
// but reading B. Like cuBLAS, step 10 chooses per shape, from a small family, each member one idea:
//  * 10_every_shape/tile.cuh: step 09's mainloop as a family of block tiles (fewer warps, more
//    blocks when there are too few tiles), with deterministic split-K (every tile, or only the
//    last, partial round of blocks) and a fixed-order reduction;
//  * 10_every_shape/streaming.cuh: kernels built around the bytes a shape must move: GEMV for
//    N == 1 and for M == 1, skinny M (B streamed once, all rows of A resident), tall (N <= 8), outer
//    (K <= 32: bound by the store of C);
//  * 10_every_shape/planner.h: the model that picks among them, from the rates of the GPU it runs
//    on (SMs, clocks, bus width, shared memory, registers) and a calibration of what each kernel
//    gets of them.
// sgemm_runner --tune times every candidate against the pick. See docs/kernels/10_every_shape.md.
#include "10_every_shape/calibration.h"
#include "10_every_shape/planner.h"
#include "10_every_shape/streaming.cuh"
#include "10_every_shape/tile.cuh"
#include "common/check.h"
#include "common/registry.h"
#include "common/step_entries.h"

#include <array>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>
#include <tuple>
#include <utility>

namespace {

using namespace step10;

// Registers per thread of a compiled kernel, for the occupancy model.
int registers_of(const void* kernel) {
    cudaFuncAttributes attributes{};
    sgemm::check(cudaFuncGetAttributes(&attributes, kernel));
    return attributes.numRegs;
}

// [doc:tile-kernel]
// The tile kernel of configuration I, instantiated from the planner's kTileShapes[I].
template <int I>
struct TileKernel {
    static constexpr TileShape c = kTileShapes[I];
    template <bool kBVec, bool kSplit>
    static constexpr auto kernel = sgemm_10_every_shape_tile<c.bm, c.bn, c.bk, c.wm, c.wn, c.wmiter, c.wniter, c.tm,
                                                             c.tn, c.stages, c.group_m, kBVec, kSplit>;
    static constexpr auto kernels = {kernel<true, false>, kernel<false, false>, kernel<true, true>,
                                     kernel<false, true>};
    // [doc:tile-launch]
    static void launch(const TileParams& p, int blocks, cudaStream_t stream) {
        const auto k = p.sk_tiles > 0 ? (p.b_vec ? kernel<true, true> : kernel<false, true>)
                                      : (p.b_vec ? kernel<true, false> : kernel<false, false>);
        sgemm::launch_checked(k, dim3(blocks), dim3(c.threads()), c.smem(), stream, p);
    }
    // [/doc:tile-launch]
    // [doc:prepare]
    // Once per device: more than 48 KB of dynamic shared memory needs an explicit opt-in; the
    // registers per thread feed the occupancy model (the larger of the two copy paths').
    static int prepare() {
        int regs = 0;
        for (auto kernel : kernels) {
            sgemm::allow_dynamic_smem(kernel, c.smem());
            regs = std::max(regs, registers_of(reinterpret_cast<const void*>(kernel)));
        }
        return regs;
    }
    // [/doc:prepare]
};

struct TileLaunch {
    void (*launch)(const TileParams&, int blocks, cudaStream_t);
    int (*prepare)();
};
template <std::size_t... I>
constexpr std::array<TileLaunch, sizeof...(I)> tile_launches(std::index_sequence<I...>) {
    return {TileLaunch{TileKernel<I>::launch, TileKernel<I>::prepare}...};
}
constexpr auto kTileLaunches = tile_launches(std::make_index_sequence<kNumTileShapes>{});

// The skinny kernel for MR rows of A (kSkinnyRows), B read as float4s (vec 4) or floats (vec 1).
template <int MR>
constexpr auto skinny_kernel(int vec) {
    return vec == 4 ? sgemm_10_every_shape_skinny<MR, true> : sgemm_10_every_shape_skinny<MR, false>;
}
using SkinnyKernel = void (*)(SkinnyParams);
SkinnyKernel skinny_kernel_for(int rows, int vec) {
    switch (rows) {
        case 4: return skinny_kernel<4>(vec);
        case 8: return skinny_kernel<8>(vec);
        default: return skinny_kernel<16>(vec);
    }
}

// The tall kernel, A read as float4s (vec) or floats.
using TallKernel = void (*)(TallParams);
TallKernel tall_kernel_for(bool vec) {
    return vec ? sgemm_10_every_shape_tall<true> : sgemm_10_every_shape_tall<false>;
}

// [doc:current-device]
// The model of the GPU this process runs on: cudaDeviceGetAttribute, once per device. The
// calibration is the one measured on a GPU of this name (calibration.h; the H200's for a GPU not
// measured yet), or the file SGEMM_STEP10_CALIBRATION names (written by scripts/calibrate_planner).
const DeviceModel& current_device() {
    return sgemm::per_device<DeviceModel>([](int device) {
        DeviceModel d;
        auto attribute = [device](cudaDeviceAttr attr) { return sgemm::device_attribute(attr, device); };
        d.cc = 10 * attribute(cudaDevAttrComputeCapabilityMajor) + attribute(cudaDevAttrComputeCapabilityMinor);
        d.sms = attribute(cudaDevAttrMultiProcessorCount);
        d.sm_clock_hz = 1e3 * attribute(cudaDevAttrClockRate);
        d.mem_clock_hz = 1e3 * attribute(cudaDevAttrMemoryClockRate);
        d.bus_bits = attribute(cudaDevAttrGlobalMemoryBusWidth);
        d.smem_per_sm = attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor);
        d.smem_reserved_per_block = attribute(cudaDevAttrReservedSharedMemoryPerBlock);
        d.regs_per_sm = attribute(cudaDevAttrMaxRegistersPerMultiprocessor);
        d.threads_per_sm = attribute(cudaDevAttrMaxThreadsPerMultiProcessor);
        d.blocks_per_sm = attribute(cudaDevAttrMaxBlocksPerMultiprocessor);
        d.l2_bytes = attribute(cudaDevAttrL2CacheSize);
        for (int i = 0; i < kNumTileShapes; ++i) d.tile_regs[i] = kTileLaunches[i].prepare();
        d.outer_regs = registers_of(reinterpret_cast<const void*>(sgemm_10_every_shape_outer));
        d.tall_regs = std::max(registers_of(reinterpret_cast<const void*>(tall_kernel_for(true))),
                               registers_of(reinterpret_cast<const void*>(tall_kernel_for(false))));
        d.gemv_m1_regs = registers_of(reinterpret_cast<const void*>(sgemm_10_every_shape_gemv_m1));
        for (int r : kSkinnyRows)
            for (int vec : {4, 1}) {
                const void* kernel = reinterpret_cast<const void*>(skinny_kernel_for(r, vec));
                sgemm::allow_dynamic_smem(kernel, skinny_smem(r));
                int& regs = d.skinny_regs[skinny_row_index(r)];
                regs = std::max(vec == 4 ? 0 : regs, registers_of(kernel));
            }
        if (const char* path = std::getenv("SGEMM_STEP10_CALIBRATION"); path && *path) {
            d.cal = read_calibration(path);
        } else {
            cudaDeviceProp prop{};
            sgemm::check(cudaGetDeviceProperties(&prop, device));
            d.cal = parse_calibration(calibration_for(prop.name));
        }
        return d;
    });
}

Shape shape_of(const sgemm::GemmArgs& a) {
    return {a.M,
            a.N,
            a.K,
            a.beta == 0.0f,
            sgemm::rows_are_16b_aligned(a.B, a.ldb),
            sgemm::rows_are_16b_aligned(a.C, a.ldc)};
}

// Every tile shape's outputs split into whole blocks of the reduction (4 outputs a thread).
constexpr bool every_tile_fills_reduce_blocks() {
    for (const TileShape& c : kTileShapes)
        if (c.bm * c.bn % reduce_block_outputs(1) != 0) return false;  // the most outputs a block takes
    return true;
}

// Whether the reduction kernel loaded on this device was compiled with its wait for the tile kernel
// (PTX for sm_90+): only then may it be launched chained. Asked once per device.
constexpr int kChainedReduceMinPtx = 90;
bool reduce_waits_for_prior_grid() {
    return sgemm::per_device<bool>([](int) {
        cudaFuncAttributes attr{};
        sgemm::check(cudaFuncGetAttributes(&attr, sgemm_10_every_shape_reduce));
        return attr.ptxVersion >= kChainedReduceMinPtx;
    });
}

void run(const sgemm::GemmArgs& a, const Plan& plan, void* workspace, cudaStream_t stream) {
    if (plan.kind == Plan::kGemvN1) {
        const long long rows_per_block = 256 / plan.gemv_width;
        const dim3 grid(static_cast<unsigned>((a.M + rows_per_block - 1) / rows_per_block));
        const bool a_vec = sgemm::rows_are_16b_aligned(a.A, a.lda);
        auto go = [&](auto kernel) {
            sgemm::launch_checked(kernel, grid, dim3(256), 0, stream, a.M, a.K, a.alpha, a.A, a.lda, a.B, a.ldb, a.beta,
                                  a.C, a.ldc, a_vec);
        };
        switch (plan.gemv_width) {
            case 1: go(sgemm_10_every_shape_gemv_n1<1>); break;
            case 2: go(sgemm_10_every_shape_gemv_n1<2>); break;
            case 4: go(sgemm_10_every_shape_gemv_n1<4>); break;
            case 8: go(sgemm_10_every_shape_gemv_n1<8>); break;
            case 16: go(sgemm_10_every_shape_gemv_n1<16>); break;
            case 32: go(sgemm_10_every_shape_gemv_n1<32>); break;
            case 64: go(sgemm_10_every_shape_gemv_n1<64>); break;
            case 128: go(sgemm_10_every_shape_gemv_n1<128>); break;
            default: go(sgemm_10_every_shape_gemv_n1<256>); break;
        }
        return;
    }
    if (plan.kind == Plan::kOuter) {
        sgemm::launch_checked(sgemm_10_every_shape_outer, dim3(plan.tiles), dim3(kStreamThreads), 0, stream, a);
        return;
    }
    if (plan.kind == Plan::kSkinny || plan.kind == Plan::kGemvM1) {
        SkinnyParams p{a, plan.row_groups, plan.k_per_split, nullptr, nullptr};
        const unsigned grid_x = static_cast<unsigned>(plan.col_blocks) * plan.row_groups;
        if (plan.splits > 1) {
            p.partials = static_cast<float*>(workspace);
            p.counters = reinterpret_cast<unsigned*>(static_cast<char*>(workspace) + plan.partial_bytes);
            sgemm::check(cudaMemsetAsync(p.counters, 0, grid_x * sizeof(unsigned), stream));
        }
        const dim3 grid(grid_x, plan.splits);
        if (plan.kind == Plan::kGemvM1)
            sgemm::launch_checked(sgemm_10_every_shape_gemv_m1, grid, dim3(kStreamThreads), 0, stream, p);
        else
            sgemm::launch_checked(skinny_kernel_for(plan.rows, plan.vec), grid, dim3(kStreamThreads),
                                  skinny_smem(plan.rows), stream, p);
        return;
    }
    if (plan.kind == Plan::kTall) {
        TallParams p{a, plan.k_per_split, nullptr, nullptr};
        if (plan.splits > 1) {
            p.partials = static_cast<float*>(workspace);
            p.counters = reinterpret_cast<unsigned*>(static_cast<char*>(workspace) + plan.partial_bytes);
            sgemm::check(cudaMemsetAsync(p.counters, 0, plan.row_blocks * sizeof(unsigned), stream));
        }
        // float4 loads of A where its rows start on 16 bytes (the K ranges start on multiples of 4).
        const bool vec = sgemm::rows_are_16b_aligned(a.A, a.lda);
        sgemm::launch_checked(tall_kernel_for(vec), dim3(plan.row_blocks, plan.splits), dim3(kStreamThreads), 0, stream,
                              p);
        return;
    }
    const TileShape& c = kTileShapes[plan.config];
    if (plan.workspace && reinterpret_cast<std::uintptr_t>(workspace) % 16 != 0)
        throw std::invalid_argument("10_every_shape: the workspace must be 16-byte aligned");
    TileParams p{};
    p.M = a.M, p.N = a.N, p.K = a.K, p.alpha = a.alpha, p.beta = a.beta;
    p.A = a.A, p.lda = a.lda, p.B = a.B, p.ldb = a.ldb, p.C = a.C, p.ldc = a.ldc;
    if (plan.pack_b) {  // B, copied into the workspace with 16-byte aligned rows
        float* packed = static_cast<float*>(workspace);
        const int ldp = static_cast<int>(sgemm::round_up4(a.N));  // N <= 2^31 - 4 where B is packed
        const long long n = static_cast<long long>(a.K) * ldp;
        const dim3 grid(static_cast<unsigned>(std::min<long long>((n + 255) / 256, 8 * 1024)));
        sgemm::launch_checked(sgemm_10_every_shape_pack_b, grid, dim3(256), 0, stream, a.K, a.N, a.B, a.ldb, packed,
                              ldp);
        p.B = packed, p.ldb = ldp;
    }
    // float4 copies need B's row starts 16-byte aligned, float4 stores C's (A is copied one float at
    // a time anyway); otherwise 4-byte copies and scalar stores.
    p.b_vec = sgemm::rows_are_16b_aligned(p.B, p.ldb);
    p.c_vec = sgemm::rows_are_16b_aligned(a.C, a.ldc);
    p.dp_tiles = plan.dp_tiles, p.sk_tiles = plan.sk_tiles, p.splits = plan.splits, p.k_per_split = plan.k_per_split;
    p.partials = reinterpret_cast<float*>(static_cast<char*>(workspace) + plan.pack_bytes);
    kTileLaunches[plan.config].launch(p, plan.dp_tiles + plan.sk_tiles * plan.splits,
                                      stream);  // 1D grid: rasterized in the kernel
    if (plan.splits > 1) {
        static_assert(every_tile_fills_reduce_blocks(), "the reduction's blocks cover whole tiles");
        const dim3 grid(plan.sk_tiles * (c.bm * c.bn / reduce_block_outputs(plan.splits)));
        // Chained where the reduction was compiled for sm_90+ (its griddepcontrol.wait exists only there;
        // a compute_80 build JIT-compiled on an H100 has none): no launch between the two kernels.
        if (reduce_waits_for_prior_grid())
            sgemm::launch_chained(sgemm_10_every_shape_reduce, grid, dim3(kReduceThreads), 0, stream, p, c.bm, c.bn,
                                  c.group_m);
        else
            sgemm::launch_checked(sgemm_10_every_shape_reduce, grid, dim3(kReduceThreads), 0, stream, p, c.bm, c.bn,
                                  c.group_m);
    }
}

// [doc:plan-cache]
// The plans depend on the shape, on whether B's and C's rows are 16-byte aligned, on beta == 0 and
// on the device. Evaluating the model takes tens of microseconds of CPU time, as long as a small GEMM runs,
// so they are computed once per such key (the list of candidates and the pick).
struct Plans {
    std::vector<Plan> all;
    Plan pick;
};
using PlanKey = std::tuple<int, int, int, int, bool, bool, bool>;
struct PlanCache {
    std::map<PlanKey, Plans> plans;
    std::mutex mutex;
};
PlanCache& plan_cache() {
    static PlanCache cache;  // one for every caller (a static inside the template below would be one per lambda)
    return cache;
}

template <class F>
auto with_cached_plans(const sgemm::GemmArgs& a, F&& f) {
    int device = 0;
    sgemm::check(cudaGetDevice(&device));
    PlanCache& c = plan_cache();
    auto& cache = c.plans;
    const Shape s = shape_of(a);
    const PlanKey key{device, s.M, s.N, s.K, s.b_aligned, s.c_aligned, s.beta_zero};
    const std::lock_guard<std::mutex> lock(c.mutex);
    auto it = cache.find(key);
    if (it == cache.end()) {
        if (cache.size() > 1024) cache.clear();  // bounded, for a program with endless shapes
        const DeviceModel& d = current_device();
        std::vector<Plan> all = all_plans(s, d);
        const Plan picked = pick_among(s, all);
        it = cache.emplace(key, Plans{std::move(all), picked}).first;
    }
    return f(it->second);  // under the lock: another thread may clear the cache
}
// [/doc:plan-cache]
Plan cached_pick(const sgemm::GemmArgs& a) {
    return with_cached_plans(a, [](const Plans& p) { return p.pick; });
}

// No template: the plan, not the type, picks the configuration, per shape.
struct Gemm {
    static void launch(const sgemm::GemmArgs& args, void* workspace, cudaStream_t stream) {
        run(args, cached_pick(args), workspace, stream);
    }

    static std::string describe(const sgemm::GemmArgs& args) { return cached_pick(args).describe(); }

    // Every shape has a plan but those whose tiles cannot be counted in an int even with the largest
    // tile (M * N beyond ~7e13 outputs: no GPU holds such a C). Indices stay relative to the tile.
    static std::string can_implement(const sgemm::GemmArgs& a) {
        if (a.N == 1 || a.M == 1) return "";
        if (sgemm::tile_total(a.M, a.N, 128, 256) > INT_MAX) return "more than 2^31 - 1 tiles";
        return "";
    }

    static std::size_t workspace_bytes(const sgemm::GemmArgs& args) { return cached_pick(args).workspace; }

    static std::vector<sgemm::Candidate> candidates(const sgemm::GemmArgs& args) {
        std::vector<sgemm::Candidate> out;
        with_cached_plans(args, [&](const Plans& plans) {
            for (const Plan& p : plans.all) out.push_back({p.id(), p.describe(), p.workspace});
            return 0;
        });
        return out;
    }

    static void launch_candidate(const sgemm::GemmArgs& args, int id, void* workspace, cudaStream_t stream) {
        const std::optional<Plan> plan = with_cached_plans(args, [id](const Plans& plans) -> std::optional<Plan> {
            for (const Plan& p : plans.all)
                if (p.id() == id) return p;
            return std::nullopt;
        });
        if (!plan)
            throw std::invalid_argument("10_every_shape: no candidate " + std::to_string(id) + " for this shape");
        run(args, *plan, workspace, stream);
    }
};

}  // namespace

const sgemm::StepEntry& sgemm::every_shape_entry() {
    static const StepEntry entry{Gemm::launch, Gemm::workspace_bytes, Gemm::describe, Gemm::can_implement,
                                 [](const GemmArgs& args) { return cached_pick(args).seconds; }};
    return entry;
}

// [doc:registration]
static const sgemm::Registration registration{
    Gemm{},
    {.number = 10,
     .name = "every_shape",
     .idea = "step 09's mainloop as a family of tiles, deterministic split-K, and streaming kernels for small K and "
             "skinny M, picked per shape by a model of the GPU it runs on",
     .requirements = {.min_cc = 80},
     .sass = {.functions = "sgemm_10_every_shape_tile", .required = {"LDS.128", "LDGSTS"}}}};
// [/doc:registration]
