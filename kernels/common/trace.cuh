// Timeline stamps for the pipelined mainloops of steps 08, 09 and 11: per k-tile, when its copy was
// issued, when its data was ready for the math, and when the math on it began and ended, in SM
// cycles (clock64). A kernel takes a trace policy as its last template argument and parameter:
//   NoTrace (the default): every stamp is an empty inline call, so the registered kernels compile to
//     the machine code they have without it;
//   RecordTrace (tuning builds, the *_timeline variants read by sgemm_timeline): one thread per role
//     of a few sampled blocks stores clock64() into a Timeline at the start of the workspace, with
//     plain global stores (no atomics, no fences) so that the stamps disturb the pipeline little.
// The layout of the record is plain C++ (no CUDA), for the host program and its tests.
#pragma once

#include <cstddef>

namespace sgemm::trace {

// What happened to k-tile t: its copy was issued; its data was ready for the math (the barrier or
// wait that makes it visible is done); the math on it began; it ended.
enum class Event : int { issue, ready, compute_begin, compute_end };
// Who stamps: steps 08 and 09 have one thread speak for the whole block (every thread copies and
// computes); step 11 has its producer thread and one thread of each consumer warpgroup.
enum class Role : int { all, producer, consumer0, consumer1 };

inline constexpr int kEvents = 4, kRoles = 4;
inline constexpr const char* kEventNames[kEvents] = {"issue", "ready", "compute_begin", "compute_end"};
inline constexpr const char* kRoleNames[kRoles] = {"all", "producer", "consumer0", "consumer1"};

inline constexpr int kSampledBlocks = 2;  // block 0, and the block in the middle of the grid
inline constexpr int kKTiles = 64;        // the first k-tiles of each sampled block

// Slot of the block with linear index `block` in a grid of `blocks`: 0 for block 0, 1 for block
// blocks / 2 (none when that is block 0 too), -1 for every other block.
constexpr int sampled_slot(long long block, long long blocks) { return block == 0 ? 0 : block == blocks / 2 ? 1 : -1; }

// One sampled block as the kernel leaves it: a cycle of 0 is an event never stamped.
struct BlockTimeline {
    long long block;                              // linear index: x + gridDim.x * (y + gridDim.y * z)
    long long sm;                                 // %smid of the SM that ran it
    long long cycle[kRoles][kKTiles][kEvents];  // clock64() at each event
};
struct Timeline {
    BlockTimeline blocks[kSampledBlocks];
};
// Workspace a recording kernel takes for its Timeline, rounded to 256 bytes: what follows it (step
// 11's A^T) stays as aligned as the workspace itself.
inline constexpr std::size_t kTimelineBytes = (sizeof(Timeline) + 255) / 256 * 256;

#ifdef __CUDACC__

// The default policy: nothing stamped, nothing stored, no workspace.
struct NoTrace {
    static constexpr std::size_t workspace_bytes = 0;
    static NoTrace at(void* /*workspace*/) { return {}; }
    struct Speaker {
        __device__ __forceinline__ void stamp(Event, int /*k_tile*/) const {}
    };
    __device__ __forceinline__ Speaker speaker(Role, bool /*speaks*/) const { return {}; }
};

// A plain global store (STG; the compiler would emit a generic ST for a pointer it got from a struct).
__device__ __forceinline__ void store_global(long long* p, long long value) {
    asm volatile("st.global.u64 [%0], %1;" : : "l"(p), "l"(value));
}

// Stamps into the Timeline at the start of the workspace (which the caller zeroes: slots that no
// block stamps stay 0).
struct RecordTrace {
    static constexpr std::size_t workspace_bytes = kTimelineBytes;
    static RecordTrace at(void* workspace) { return {static_cast<Timeline*>(workspace)}; }

    Timeline* out;

    struct Speaker {
        long long (*cycle)[kEvents];  // this role's row of a sampled block; nullptr: the thread is silent
        __device__ __forceinline__ void stamp(Event e, int k_tile) const {
            if (cycle && k_tile < kKTiles) store_global(&cycle[k_tile][static_cast<int>(e)], clock64());
        }
    };

    // The stamps of the calling thread for `role`: live where `speaks` (one thread per role and block)
    // and the block is sampled; that thread also records the block's index and SM.
    __device__ __forceinline__ Speaker speaker(Role role, bool speaks) const {
        const long long blocks = static_cast<long long>(gridDim.x) * gridDim.y * gridDim.z;
        const long long block = blockIdx.x + static_cast<long long>(gridDim.x) * (blockIdx.y + gridDim.y * blockIdx.z);
        const int slot = sampled_slot(block, blocks);
        if (!speaks || slot < 0) return {nullptr};
        unsigned sm;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
        BlockTimeline& b = out->blocks[slot];
        store_global(&b.block, block);
        store_global(&b.sm, sm);
        return {b.cycle[static_cast<int>(role)]};
    }
};

#endif  // __CUDACC__

}  // namespace sgemm::trace
