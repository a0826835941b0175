// The kernel interface and self-registration. Each kernels/NN_name.cu ends with one registration
//
//   static const sgemm::Registration registration{Gemm<128, 128, 8>{}, {.number = NN, .name = "name",
//                                                                       .idea = "one-line idea"}};
//
// (Gemm<...>: the configuration as a type whose static member functions launch it, see KernelConfig)
// and is then picked up by sgemm_runner, the tests and the scripts (benchmark, report, sanitizer,
// profiler, SASS checks), which read the registry through `sgemm_runner --list --json -`. There is no
// central list to edit: every fact about a kernel is a field of its KernelSpec, set by that
// registration. The kernel objects are linked as a CMake OBJECT library, so the linker cannot drop an
// "unused" registration. A step that changes several things at once registers its sub-steps (9a, 9b:
// other instantiations of its kernel, KernelSpec::part) in its file too, before its own registration.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "sgemm/sgemm.h"  // Op: the library's public header is the one place the layouts are named

namespace sgemm {

// One GEMM call: row-major C = alpha * op(A) * op(B) + beta * C, with
//   A  M x K, element (m, k) at A[m * lda + k], lda >= K   (op_a == kN; kT: K x M, at A[k * lda + m], lda >= M)
//   B  K x N, element (k, n) at B[k * ldb + n], ldb >= N   (op_b == kN; kT: N x K, at B[n * ldb + k], ldb >= K)
//   C  M x N, element (m, n) at C[m * ldc + n], ldc >= N
// Steps 01-11 compute NN only (op_a = op_b = kN, the layout their lessons are written for): other
// layouts are N/A for a kernel unless its KernelSpec sets any_layout.
// A, B and C may be views into larger matrices: a kernel reads and writes nothing outside
// the M x N (M x K, K x N) elements, and assumes no alignment of the pointers or leading
// dimensions beyond 4 bytes. With beta == 0, C is write-only (BLAS semantics: NaN in C is ignored).
// Dimensions and leading dimensions are below 2^31; element offsets are computed in 64 bits.
struct GemmArgs {
    int M = 0, N = 0, K = 0;
    float alpha = 1.0f, beta = 0.0f;
    const float* A = nullptr;
    int lda = 0;
    const float* B = nullptr;
    int ldb = 0;
    float* C = nullptr;
    int ldc = 0;
    Op op_a = Op::kN, op_b = Op::kN;
};

// "NN", "NT", "TN", "TT": op(A) then op(B), as cuBLAS and the runner's --layout name them.
std::string layout_name(Op op_a, Op op_b);
inline std::string layout_name(const GemmArgs& a) { return layout_name(a.op_a, a.op_b); }

// The launch of one kernel. `workspace` holds workspace_bytes(args) bytes (nullptr when 0), starts
// 256-byte aligned (the runner and the tests allocate it with cudaMalloc), and its contents on entry
// are undefined: a kernel must write what it reads. A launch only queues work on `stream` (no
// synchronization, no copy to the host): it must work inside a CUDA graph capture. The one exception is
// the tuned cuBLASLt baseline's first launch on a shape, which times its candidates.
using LaunchFn = void (*)(const GemmArgs& args, void* workspace, cudaStream_t stream);
// Bytes of device workspace a launch on `args` needs (nullptr in a KernelSpec: none).
using WorkspaceFn = std::size_t (*)(const GemmArgs& args);
// Empty when the kernel can run on `args`; otherwise why not (printed as "N/A (reason)").
using CanImplementFn = std::string (*)(const GemmArgs& args);
// A short description of the configuration that will run on `args` (tile, stages, split-k, ...).
using DescribeFn = std::string (*)(const GemmArgs& args);

// For kernels that choose among configurations by shape (`sgemm_runner --tune`): every
// configuration the kernel could run on `args`, each launchable on its own. The one that
// launch() picks has the description that describe(args) returns.
struct Candidate {
    int id = 0;                   // passed back to LaunchCandidateFn
    std::string description;      // same format as DescribeFn's
    std::size_t workspace_bytes = 0;
};
using CandidatesFn = std::vector<Candidate> (*)(const GemmArgs& args);
using LaunchCandidateFn = void (*)(const GemmArgs& args, int id, void* workspace, cudaStream_t stream);

// What a kernel asks of the GPU. A kernel whose requirements the device does not meet is
// listed as "N/A (needs ...)" and never launched.
struct Requirements {
    int min_cc = 0;            // minimum compute capability x 10, e.g. 80 for cp.async
    bool needs_sm90a = false;  // wgmma / setmaxnreg: compiled for sm_90a only, runs on CC 9.0 only
};

// How the products are computed. The first two are held to the FP32 error bound; kTf32 (a
// tuning-build experiment: one TF32 product) is expected to miss it and is reported as "TF32"
// instead of "PASS" when its error is within TF32's (tf32_normwise_bound in runner/verify.h).
enum class Precision { kFp32, kFp32ViaTensorCores, kTf32 };
const char* to_string(Precision p);  // "fp32", "fp32 via tensor cores", "tf32"

// Kernels numbered from here on are tuning variants (other tiles, stages, builds without edge
// handling), registered only in -DSGEMM_TUNING=ON builds; sub-steps are numbered here too (see
// sub_step_number) but are no tuning variants. The scripts read it from --list --json.
inline constexpr int kTuningFrom = 100;

// A sub-step is a rung of the ladder between step `step` - 1 and step `step` that changes one thing at a
// time (9a, 9b, then step 9). It registers its step's number and its letter, 'a' to 'i'; the registry
// gives it this number of its own, so that every kernel keeps one integer (the JSON's "kernel"): 9a is
// 991, 9b 992, above the step's tuning variants (900, 901, ...).
constexpr int sub_step_number(int step, char part) { return step * 100 + 91 + (part - 'a'); }

// The baselines: libraries' GEMMs the steps are timed against, not steps (no functions of ours, so no
// SASS checks and no racecheck; the runner times them whatever --kernel says). 0 is cuBLAS
// (cublasSgemm), the reference of % cuBLAS; kTunedBaseline is cuBLASLt with the fastest of its
// heuristic's algorithms timed on each problem (kernels/99_cublaslt.cu), the reference of % tuned.
// Numbered after any step there will be and below kTuningFrom, so the steps stay 1, 2, 3, ... without
// gaps. The scripts read it from --list --json.
inline constexpr int kTunedBaseline = 99;

// What the machine code of a kernel must show, checked without a GPU by tests/check_sass.py in the
// code for the SMs its Requirements allow. Features are names from check_sass.py's vocabulary, which
// maps each to an instruction pattern: "LDG.128", "LDS.128", "LDGSTS", "UTMALDG", "SYNCS",
// "HGMMA.TF32", "IGMMA.S8". A tuning variant needs none of its own: its functions are its step's, so the step's
// checks cover them.
struct SassChecks {
    // The __global__ functions checked: a whole name (every template instance of it) or a prefix
    // ending in '_'. nullptr: the kernel's gemm_function if it has one, else all its functions (sgemm_NN_).
    const char* functions = nullptr;
    std::vector<std::string> required = {};  // features each of those functions must show
    std::vector<std::string> absent = {};    // features none of them may show
};

// What a kernel file registers (an aggregate: designated initializers keep it to one line). Its
// __global__ functions are named sgemm_NN_* after its step (a tuning variant's are its step's).
struct KernelSpec {
    int number = -1;            // 0 cuBLAS; steps 1, 2, 3, ...; kTunedBaseline; tuning variants kTuningFrom+
    char part = 0;              // a sub-step's letter ('a': 9a registers .number = 9, .part = 'a'); 0: none
    const char* name = "";      // e.g. "naive"; a tuning variant's starts with its step's name and '_'
    const char* idea = "";      // one line for --list and the docs
    LaunchFn launch = nullptr;
    DescribeFn describe = nullptr;            // nullptr: the empty string
    CanImplementFn can_implement = nullptr;   // nullptr: every valid GemmArgs
    WorkspaceFn workspace_bytes = nullptr;    // nullptr: no workspace
    Requirements requirements = {};  // a tuning variant needs at least its step's as well
    Precision precision = Precision::kFp32;
    CandidatesFn candidates = nullptr;           // nullptr: one configuration, nothing to tune
    LaunchCandidateFn launch_candidate = nullptr;
    // For a kernel that launches operand pre-pass kernels before the GEMM: the __global__ function that
    // computes the product (what a profiler should pick). nullptr: the kernel's first launch is the GEMM.
    // A tuning variant that sets none inherits its step's.
    const char* gemm_function = nullptr;
    SassChecks sass = {};  // no features: no checks beyond check_sass.py's own (no local memory)
    // A slow teaching kernel: scripts/bench runs it by default only on problems of at most
    // 2 * bench_cap^3 FLOP (a bench_cap^3 cube), so that it does not take most of a sweep. 0: no cap.
    int bench_cap = 0;
    // false: NN only, every other layout is N/A ("NN only"); true: all four (can_implement decides).
    bool any_layout = false;
    // Earlier steps whose kernels this one launches (step 13 runs step 10's or step 12's): their
    // functions are launched by it too, so the sanitizer instruments them on its runs.
    std::vector<int> composes = {};
};

// A registered kernel: its spec and what the registry derives from it.
struct KernelInfo {
    // As registered, idea never null, with what a tuning variant inherits filled in, and a sub-step's
    // number its own (sub_step_number).
    KernelSpec spec;
    std::string name;  // spec.name
    // spec.number for a step or a baseline; for a sub-step, the number it registered (9 for 9a); for a
    // tuning variant, the step whose name and '_' start its name (103 smem_caching_checked: 3). Derived
    // rather than registered: the name already says it, and a second field could disagree with it.
    int step = -1;

    std::string label() const;  // "01_naive", "09a_cp_async_pipeline"
    bool is_sub_step() const { return spec.part != 0; }
    bool is_tuning_variant() const { return spec.number >= kTuningFrom && !is_sub_step(); }
    // cuBLAS or the tuned cuBLASLt baseline: by number, as a tuning variant is.
    bool is_baseline() const { return spec.number == 0 || spec.number == kTunedBaseline; }
    // "sgemm_07_": the prefix of every __global__ function of the kernel (its step's); "" for a baseline.
    std::string functions() const;
    // functions() and the prefixes of the steps it composes: every __global__ function it may launch.
    std::vector<std::string> launched_functions() const;
    // What spec.sass checks (see SassChecks::functions); "" when the kernel has no SASS checks.
    std::string sass_functions() const;
    std::string describe(const GemmArgs& args) const;
    std::string can_implement(const GemmArgs& args) const;  // empty: it can
    std::size_t workspace_bytes(const GemmArgs& args) const;
    // Empty when a device of compute capability `cc` (x 10, e.g. 90) meets the requirements;
    // otherwise "needs sm_90a" / "needs sm_80 or newer".
    std::string unmet_requirements(int cc) const;
};

// All registered kernels in the ladder's order: cuBLAS, the steps, each step's sub-steps just before it
// (08, 09a, 09b, 09, 10), the tuned baseline, then the tuning variants by number.
const std::vector<KernelInfo>& registry();

// Looks a kernel up by number ("7", "07", "991"), a sub-step's step and letter ("9a", "09a") or name
// ("warptiling", "07_warptiling"). Returns nullptr when nothing matches.
const KernelInfo* find_kernel(std::string_view key);

// The step a tuning variant named `name` belongs to: the registered step (not a sub-step) whose name
// and '_' start `name` (the longest such name, should step names ever prefix one another); nullptr when
// none does.
const KernelInfo* step_of_variant(std::string_view name);

// A kernel configuration as one type: a struct whose template arguments are the configuration
// (BM, BN, BK, ...) and whose static member functions launch it, with the signatures above:
// launch (required), describe, can_implement, workspace_bytes, candidates + launch_candidate
// (each taken when the struct has it). Registering the type, not its functions one by one, names
// the configuration once, so a variant cannot describe one configuration and launch another.
template <typename Config>
concept KernelConfig = requires { &Config::launch; };

struct Registration {
    // Throws std::logic_error (at start-up) on a duplicate number or name, a name outside
    // [a-z0-9_]+, a missing launch function, a sub-step whose letter is not 'a' to 'i' or whose number lies
    // outside 1 to kTunedBaseline - 1 (that its step exists, the registry's tests check), a tuning variant whose name starts with no registered
    // step's name and '_' (a variant registers after its step, in the step's file), or a
    // gemm_function or SASS function outside the kernel's sgemm_NN_ functions.
    explicit Registration(const KernelSpec& spec);
    // The functions of `Config` plus what `spec` says (number, name, idea, requirements, ...); `spec`
    // sets none of the functions itself:
    //   static const sgemm::Registration registration{Gemm<128, 128, 8>{}, {.number = 5, .name = ...}};
    template <KernelConfig Config>
    Registration(Config, KernelSpec spec) : Registration(with_functions_of<Config>(spec)) {}

  private:
    template <typename Config>
    static KernelSpec with_functions_of(KernelSpec spec) {
        if (spec.launch || spec.describe || spec.can_implement || spec.workspace_bytes || spec.candidates ||
            spec.launch_candidate)
            throw_functions_set_twice(spec);
        // A member is taken when its name exists; a wrong signature then fails to compile here
        // instead of leaving the field empty (a can_implement dropped that way would accept every shape).
        spec.launch = static_cast<LaunchFn>(&Config::launch);
        if constexpr (requires { &Config::describe; }) spec.describe = static_cast<DescribeFn>(&Config::describe);
        if constexpr (requires { &Config::can_implement; })
            spec.can_implement = static_cast<CanImplementFn>(&Config::can_implement);
        if constexpr (requires { &Config::workspace_bytes; })
            spec.workspace_bytes = static_cast<WorkspaceFn>(&Config::workspace_bytes);
        if constexpr (requires { &Config::candidates; }) {
            spec.candidates = static_cast<CandidatesFn>(&Config::candidates);
            spec.launch_candidate = static_cast<LaunchCandidateFn>(&Config::launch_candidate);
        }
        return spec;
    }
    [[noreturn]] static void throw_functions_set_twice(const KernelSpec& spec);
};

// Empty when `args` is a valid GEMM call (dimensions >= 1, leading dimensions large enough,
// non-null pointers); otherwise what is wrong. The runner checks every call it builds.
std::string validate(const GemmArgs& args);

}  // namespace sgemm
