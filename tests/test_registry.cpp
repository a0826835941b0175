#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <regex>
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>

#include "cli.h"
#include "common/check.h"
#include "common/cublas_pieces.h"
#include "common/registry.h"

using namespace sgemm;

// The ladder's order: every kernel but the tuning variants by step, a step's sub-steps just before it by
// letter (08, 09a, 09b, 09, 10), then the tuning variants by number.
TEST(Registry, NumbersAndNamesAreUniqueInLadderOrder) {
    std::set<int> numbers;
    std::set<std::string> names;
    auto place = [](const KernelInfo& k) {
        return k.is_tuning_variant() ? std::tuple(1, k.spec.number, 0, '\0')
                                     : std::tuple(0, k.step, k.is_sub_step() ? 0 : 1, k.spec.part);
    };
    const KernelInfo* previous = nullptr;
    for (const auto& k : registry()) {
        EXPECT_TRUE(numbers.insert(k.spec.number).second) << k.label();
        EXPECT_TRUE(names.insert(k.name).second) << k.label();
        if (previous) EXPECT_LT(place(*previous), place(k)) << previous->label() << " before " << k.label();
        previous = &k;
        EXPECT_TRUE(std::regex_match(k.name, std::regex("[a-z0-9_x]+"))) << k.name;
        EXPECT_STRNE(k.spec.idea, "") << k.label();
        EXPECT_NE(k.spec.launch, nullptr) << k.label();
    }
}

TEST(Registry, ZeroIsCublasAndEveryKernelIsFoundByNumberNameAndLabel) {
    ASSERT_GE(registry().size(), 3u);
    EXPECT_EQ(registry().front().spec.number, 0);
    EXPECT_EQ(registry().front().name, "cublas");
    for (const auto& k : registry()) {
        const std::string number = std::to_string(k.spec.number);
        EXPECT_EQ(find_kernel(number), &k) << number;
        if (number.size() == 1) EXPECT_EQ(find_kernel("0" + number), &k) << "0" << number;  // "07", as labels write it
        EXPECT_EQ(find_kernel(k.name), &k) << k.name;
        EXPECT_EQ(find_kernel(k.label()), &k) << k.label();
        if (k.is_sub_step()) {  // "9a", "09a", "0009a": its step and its letter
            const std::string key = std::to_string(k.step) + k.spec.part;
            EXPECT_EQ(find_kernel(key), &k) << key;
            EXPECT_EQ(find_kernel("0" + key), &k) << "0" << key;
            EXPECT_EQ(find_kernel(std::string(5 - key.size(), '0') + key), &k) << "4 digits";
            EXPECT_EQ(find_kernel(std::string(6 - key.size(), '0') + key), nullptr) << "5 digits";
            std::string upper = key;
            upper.back() = static_cast<char>(upper.back() - 'a' + 'A');
            EXPECT_EQ(find_kernel(upper), nullptr) << upper;
        }
    }
    EXPECT_EQ(find_kernel("nonexistent"), nullptr);
    EXPECT_EQ(find_kernel(""), nullptr);
    EXPECT_EQ(find_kernel("12345"), nullptr);
    EXPECT_EQ(find_kernel("9z"), nullptr);
    EXPECT_EQ(find_kernel("a"), nullptr);
}

// Step 09's three changes, one rung each: 9a (the cp.async pipeline on step 08's tile), 9b (the larger
// tile), 09 (rasterization): instantiations of step 09's kernel, right after step 08 and before step 09.
TEST(Registry, SubStepsOfStep09ChangeOneThingEach) {
    const KernelInfo *s8 = find_kernel("8"), *a = find_kernel("9a"), *b = find_kernel("09b"), *s9 = find_kernel("9");
    ASSERT_TRUE(s8 && a && b && s9);
    EXPECT_EQ(a->label(), "09a_cp_async_pipeline");
    EXPECT_EQ(b->label(), "09b_larger_tile");
    EXPECT_EQ(s9->label(), "09_cp_async_multistage");
    EXPECT_EQ(find_kernel("cp_async_pipeline"), a);
    EXPECT_EQ(find_kernel("09b_larger_tile"), b);
    EXPECT_EQ(a->spec.number, sub_step_number(9, 'a'));
    EXPECT_EQ(b->spec.number, sub_step_number(9, 'b'));
    EXPECT_EQ(find_kernel(std::to_string(a->spec.number)), a) << "its own number selects it too";
    for (const KernelInfo* k : {a, b}) {
        SCOPED_TRACE(k->label());
        EXPECT_TRUE(k->is_sub_step());
        EXPECT_FALSE(k->is_tuning_variant());
        EXPECT_FALSE(k->is_baseline());
        EXPECT_EQ(k->step, 9);
        EXPECT_EQ(k->functions(), "sgemm_09_") << "step 09's kernel";
        EXPECT_EQ(k->spec.requirements.min_cc, s9->spec.requirements.min_cc);
    }
    EXPECT_FALSE(s9->is_sub_step());
    const auto at = [](const KernelInfo* k) { return k - registry().data(); };
    EXPECT_EQ(at(a), at(s8) + 1);
    EXPECT_EQ(at(b), at(s8) + 2);
    EXPECT_EQ(at(s9), at(s8) + 3);
    // What each rung changes, as describe() says it: the tile (9a -> 9b), the block order (9b -> 09).
    alignas(256) static float x[64];
    const GemmArgs args{4096, 4096, 4096, 1, 0, x, 4096, x, 4096, x, 4096};
    EXPECT_EQ(a->describe(args), "128x128x8 tile, warp 32x64, thread 8x8, 4 stages, group 1");
    EXPECT_EQ(b->describe(args), "128x256x8 tile, warp 64x64, thread 16x8, 5 stages, group 1");
    EXPECT_EQ(s9->describe(args), "128x256x8 tile, warp 64x64, thread 16x8, 5 stages, group 8");
}

TEST(Registry, StepsAreNumberedWithoutGaps) {
    int expected = 0;
    for (const auto& k : registry()) {
        if (k.is_tuning_variant()) break;  // SGEMM_TUNING builds only
        if (k.spec.number == kTunedBaseline) continue;  // numbered after the steps, not one of them
        if (k.is_sub_step()) {  // a rung before its step: 9a, 9b come after step 08, before step 09
            EXPECT_EQ(k.step, expected) << k.label();
            continue;
        }
        EXPECT_EQ(k.spec.number, expected++) << k.label();
    }
    EXPECT_LT(expected, kTunedBaseline) << "the steps have reached the tuned baseline's number";
}

// The tuned baseline: a baseline like cuBLAS (no functions of ours, every layout, FP32), whose workspace is
// cuBLASLt's 32 MiB plus, with beta != 0, C's M x N view, kept while its first launch times the algorithms.
TEST(Registry, TunedBaselineIsABaselineWithAStatedWorkspace) {
    const KernelInfo* lt = find_kernel("cublaslt");
    ASSERT_NE(lt, nullptr);
    EXPECT_EQ(lt->spec.number, kTunedBaseline);
    EXPECT_EQ(find_kernel(std::to_string(kTunedBaseline)), lt);
    EXPECT_TRUE(lt->is_baseline());
    EXPECT_FALSE(lt->is_tuning_variant());
    EXPECT_EQ(lt->functions(), "");
    EXPECT_TRUE(lt->launched_functions().empty());
    EXPECT_EQ(lt->sass_functions(), "");
    EXPECT_TRUE(lt->spec.any_layout);
    EXPECT_EQ(lt->spec.precision, Precision::kFp32);
    EXPECT_EQ(lt->spec.candidates, nullptr) << "it tunes itself, on its first launch";
    int baselines = 0;
    for (const auto& k : registry()) baselines += k.is_baseline();
    EXPECT_EQ(baselines, 2) << "cuBLAS and the tuned baseline";
    alignas(256) static float x[64];
    const GemmArgs beta0{3, 5, 7, 1, 0, x, 7, x, 5, x, 5};
    EXPECT_EQ(lt->workspace_bytes(beta0), 32u << 20);
    GemmArgs beta1 = beta0;
    beta1.beta = 0.5f;
    EXPECT_EQ(lt->workspace_bytes(beta1), (32u << 20) + 256u);  // 3 x 5 floats, 256-byte aligned
    beta1.M = 1000, beta1.N = 1000, beta1.ldb = beta1.ldc = 1000;
    EXPECT_EQ(lt->workspace_bytes(beta1), (32u << 20) + align256(4000000));
    // It asks cuBLASLt (and so the GPU) what it runs: without one, the project's error, not a crash.
    try {
        const std::string d = lt->describe(beta0);
        EXPECT_TRUE(d.starts_with("cublasLtMatmul(OP_N, OP_N) on (B, A), CUBLAS_COMPUTE_32F, 32 MiB workspace: ")) << d;
    } catch (const CudaError&) {}
}

TEST(Registry, BadRegistrationIsRejected) {
    const LaunchFn launch = registry().front().spec.launch;
    EXPECT_THROW(Registration({.number = 1, .name = "another_naive", .idea = "dup", .launch = launch}),
                 std::logic_error);
    EXPECT_THROW(Registration({.number = 999999, .name = "naive", .idea = "dup", .launch = launch}), std::logic_error);
    EXPECT_THROW(Registration({.number = 999998, .name = "Bad-Name", .idea = "x", .launch = launch}), std::logic_error);
    EXPECT_THROW(Registration({.number = 999997, .name = "no_launch", .idea = "x"}), std::logic_error);
    // The new rules, each on a spec that breaks only that one: the message says which.
    auto rejects = [&](const KernelSpec& spec, const std::string& why) {
        try {
            Registration{spec};
            ADD_FAILURE() << spec.name << " was registered";
        } catch (const std::logic_error& e) {
            EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
        }
    };
    rejects({.number = 999996, .name = "nonexistent_step_variant", .idea = "x", .launch = launch}, "matches no step");
    // A sub-step: a letter 'a' to 'i' and a step's number; its own number (sub_step_number) must be free.
    rejects({.number = 9, .part = 'j', .name = "late_sub_step", .idea = "x", .launch = launch}, "sub-step");
    rejects({.number = 0, .part = 'a', .name = "cublas_sub_step", .idea = "x", .launch = launch}, "sub-step");
    rejects({.number = kTunedBaseline, .part = 'a', .name = "baseline_sub_step", .idea = "x", .launch = launch},
            "sub-step");
    rejects({.number = 9, .part = 'a', .name = "another_9a", .idea = "x", .launch = launch}, "clashes with 09a_");
    // A step number no step has, so that only the function is wrong.
    int free_step = kTuningFrom - 1;
    while (find_kernel(std::to_string(free_step))) --free_step;
    const std::string own = "sgemm_" + std::to_string(free_step) + "_own";
    rejects({.number = free_step,
             .name = "foreign_gemm_function",
             .idea = "x",
             .launch = launch,
             .gemm_function = "sgemm_other"},
            "names function 'sgemm_other'");
    rejects({.number = free_step,
             .name = "foreign_sass_function",
             .idea = "x",
             .launch = launch,
             .sass = {.functions = "sgemm_other", .required = {"LDS.128"}}},
            "names function 'sgemm_other'");
    rejects({.number = free_step,
             .name = "sass_without_features",
             .idea = "x",
             .launch = launch,
             .sass = {.functions = own.c_str()}},
            "no features");
}

// A tuning variant belongs to the step whose name and '_' start its name; steps belong to themselves.
TEST(Registry, StepOfAVariantIsTheStepItsNameStartsWith) {
    int steps = 0;
    for (const auto& k : registry()) {
        if (k.is_tuning_variant() || k.is_baseline()) continue;
        if (k.is_sub_step()) {  // variants belong to whole steps
            EXPECT_EQ(step_of_variant(k.name + "_variant"), nullptr) << k.label();
            continue;
        }
        ++steps;
        EXPECT_EQ(step_of_variant(k.name + "_variant"), &k) << k.label();
        EXPECT_EQ(step_of_variant(k.name), nullptr) << k.label() << ": a variant's name goes on after the '_'";
        EXPECT_EQ(step_of_variant(k.name + "variant"), nullptr) << k.label();
    }
    EXPECT_GT(steps, 0);
    EXPECT_EQ(step_of_variant("cublas_variant"), nullptr) << "cuBLAS has no variants";
    EXPECT_EQ(step_of_variant("cublaslt_variant"), nullptr) << "nor has the tuned baseline";
    EXPECT_EQ(step_of_variant("nonexistent_variant"), nullptr);
}

// Every kernel's step, functions, GEMM function and SASS checks, as the scripts read them.
TEST(Registry, FunctionsAndChecksAreTheStepsOwn) {
    bool any_sass = false, any_gemm_function = false;
    for (const auto& k : registry()) {
        SCOPED_TRACE(k.label());
        if (k.is_baseline()) {  // cuBLAS, cuBLASLt: no functions of ours
            EXPECT_EQ(k.step, k.spec.number);
            EXPECT_EQ(k.functions(), "");
            EXPECT_EQ(k.sass_functions(), "");
            continue;
        }
        // A sub-step runs its step's kernel: the step is found by the number it registered.
        const KernelInfo* step = &k;
        if (k.is_tuning_variant()) step = step_of_variant(k.name);
        if (k.is_sub_step()) step = find_kernel(std::to_string(k.step));
        ASSERT_NE(step, nullptr);
        EXPECT_EQ(k.step, step->spec.number);
        // "07_warptiling" -> "sgemm_07_": the label's number, as the __global__ functions spell it.
        const std::string label = step->label();
        EXPECT_EQ(k.functions(), "sgemm_" + label.substr(0, label.find('_') + 1));
        if (k.spec.gemm_function) {
            any_gemm_function = true;
            EXPECT_TRUE(std::string_view(k.spec.gemm_function).starts_with(k.functions()));
        }
        if (step->spec.gemm_function) EXPECT_STREQ(k.spec.gemm_function, step->spec.gemm_function) << "inherited";
        const std::string sass = k.sass_functions();
        EXPECT_EQ(sass.empty(), k.spec.sass.required.empty() && k.spec.sass.absent.empty());
        if (!sass.empty()) {
            any_sass = true;
            EXPECT_TRUE(sass.starts_with(k.functions())) << sass;
            if (!k.spec.sass.functions) EXPECT_EQ(sass, k.spec.gemm_function ? k.spec.gemm_function : k.functions());
        }
    }
    EXPECT_TRUE(any_sass) << "no kernel registers SASS checks: tests/check_sass.py would check local memory only";
    EXPECT_TRUE(any_gemm_function);
}

TEST(Registry, RequirementsDecideWhereAKernelRuns) {
    KernelInfo k;
    k.spec.requirements = {.min_cc = 80};
    EXPECT_EQ(k.unmet_requirements(90), "");
    EXPECT_EQ(k.unmet_requirements(80), "");
    EXPECT_EQ(k.unmet_requirements(75), "needs sm_80 or newer");
    k.spec.requirements = {.min_cc = 90, .needs_sm90a = true};
    EXPECT_EQ(k.unmet_requirements(90), "");
    EXPECT_EQ(k.unmet_requirements(89), "needs sm_90a");
    EXPECT_EQ(k.unmet_requirements(100), "needs sm_90a") << "sm_90a code does not run on later GPUs";
}

TEST(Registry, EveryKernelDescribesItselfAndCheckedShapesAreImplementable) {
    alignas(256) static float buffer[64];
    for (const auto& k : registry()) {
        const GemmArgs args{128, 256, 64, 1.0f, 0.0f, buffer, 64, buffer, 256, buffer, 256};
        try {
            EXPECT_FALSE(k.describe(args).empty()) << k.label();
        } catch (const CudaError&) {
            continue;  // a kernel that picks by the GPU's properties describes itself only where there is one
        }
        EXPECT_EQ(k.can_implement(args), "") << k.label() << " cannot run a whole-tile aligned shape";
        const GemmArgs odd{127, 255, 63, 1.0f, 0.0f, buffer + 1, 64, buffer + 1, 256, buffer + 1, 256};
        const std::string why = k.can_implement(odd);
        // Only tuning variants compiled without edge handling may refuse an odd shape.
        if (!k.is_tuning_variant()) EXPECT_EQ(why, "") << k.label();
        // Tall shapes are what gridDim.z is for: no step refuses M = 2^31 - 2^16 (where a 2-D grid's
        // spare blocks would overflow, fits_int_tiles refuses: test_tile_rules.cu).
        const GemmArgs tall{2147418112, 1, 1, 1.0f, 0.0f, buffer, 1, buffer, 1, buffer, 1};
        if (!k.is_tuning_variant()) EXPECT_EQ(k.can_implement(tall), "") << k.label();
    }
}

// 3xtf32_wgmma takes every shape that fits in memory: its FFMA path (K < 22) indexes within a tile, and
// its tensor-core path holds K in 64 bits where it must (split copies, the scan).
TEST(Registry, TensorCoreFp32KernelTakesShapesUpTo2To31) {
    const KernelInfo* k = find_kernel("3xtf32_wgmma");
    ASSERT_NE(k, nullptr);
    alignas(256) static float buffer[64];
    for (const GemmArgs& a :
         {GemmArgs{2147483647, 1, 1, 1.0f, 0.0f, buffer, 1, buffer, 1, buffer, 1},
          GemmArgs{1, 2147483647, 21, 1.0f, 0.0f, buffer, 21, buffer, 2147483647, buffer, 2147483647},
          GemmArgs{1, 1, 2147483647, 1.0f, 0.0f, buffer, 2147483647, buffer, 1, buffer, 1}})
        EXPECT_EQ(k->can_implement(a), "") << a.M << "x" << a.N << "x" << a.K;
}

// The pieces of a cuBLAS call (baseline and reference) cover C x K exactly once, in order, each
// within 2^30 elements of every operand it spans; a GEMM that fits is one piece.
TEST(CublasPieces, CoverTheGemmOnceWithinTheLimit) {
    struct Case {
        int M, N, K;
        long long row_pitch, k_pitch;
        long long pieces;
    };
    const long long limit = kCublasPieceElements;
    for (const Case& c : {Case{4096, 4096, 4096, 4096, 4096, 1}, Case{2147483647, 1, 1, 1, 0, 2},
                          Case{2147483647, 1, 2, 2, 0, 4}, Case{1, 2147483647, 1, 2147483647, 0, 2},
                          Case{1, 1, 2147483647, 2147483647, 1, 2}, Case{3, 5, 7, limit + 1, limit + 1, 3 * 7}}) {
        SCOPED_TRACE(testing::Message() << c.M << "x" << c.N << "x" << c.K << " row pitch " << c.row_pitch
                                        << " k pitch " << c.k_pitch);
        long long m_next = 0, n_next = 0, k_next = 0, area = 0;
        const PiecePitches pitches{.rows = c.row_pitch, .k = c.k_pitch};
        const long long pieces = for_each_gemm_piece(c.M, c.N, c.K, pitches, [&](const GemmPiece& p) {
            // Row-major order of pieces: K innermost, then columns, then rows.
            EXPECT_EQ(p.k0, k_next);
            if (p.k0 == 0) EXPECT_EQ(p.n0, n_next);
            if (p.k0 == 0 && p.n0 == 0) EXPECT_EQ(p.m0, m_next);
            EXPECT_GE(p.m, 1);
            EXPECT_GE(p.n, 1);
            EXPECT_GE(p.k, 1);
            EXPECT_TRUE(p.m == 1 || p.m * c.row_pitch <= limit);
            EXPECT_LE(p.n, limit);
            if (c.k_pitch > 0) {
                EXPECT_TRUE(p.k == 1 || p.k * c.k_pitch <= limit);
            } else {
                EXPECT_EQ(p.k, c.K);
            }
            if (p.k0 == 0) area += static_cast<long long>(p.m) * p.n;
            k_next = p.k0 + p.k == c.K ? 0 : p.k0 + p.k;
            if (k_next == 0) n_next = p.n0 + p.n == c.N ? 0 : p.n0 + p.n;
            if (k_next == 0 && n_next == 0) m_next = p.m0 + p.m;
        });
        EXPECT_EQ(pieces, c.pieces);
        EXPECT_EQ(m_next, c.M);
        EXPECT_EQ(area, static_cast<long long>(c.M) * c.N);  // every element of C in one piece per slice of K
    }
}

// Every layout, as cuBLAS reads the operands (column-major: ld times the columns a call spans; A
// transposed spans K columns of lda, B as stored K of ldb): the reference's pieces, K cut as well, keep
// each operand of each call within 2^30 elements; the baseline's, K whole, every operand whose span
// does not grow with K. Each covers C once.
TEST(CublasPieces, EveryLayoutKeepsEachOperandWithinTheLimit) {
    const long long limit = kCublasPieceElements;
    for (const Size& c : {Size{2147483647, 1, 1}, Size{1, 2147483647, 1}, Size{1, 1, 2147483647}, Size{65536, 65536, 3},
                          Size{3, 65536, 65536}, Size{65536, 3, 65536}, Size{1000, 999, 998}})
        for (const Op op_a : {Op::kN, Op::kT})
            for (const Op op_b : {Op::kN, Op::kT})
                for (const bool whole_k : {false, true}) {
                    SCOPED_TRACE(testing::Message() << c.M << "x" << c.N << "x" << c.K << " " << layout_name(op_a, op_b)
                                                    << (whole_k ? " K whole" : " K cut"));
                    const long long lda = op_a == Op::kN ? c.K : c.M, ldb = op_b == Op::kN ? c.N : c.K, ldc = c.N;
                    PiecePitches pitches = gemm_pitches(op_a, lda, op_b, ldb, ldc);
                    if (whole_k) pitches.k = 0;
                    long long area = 0;
                    for_each_gemm_piece(c.M, c.N, c.K, pitches, [&](const GemmPiece& p) {
                        const long long a_cols = op_a == Op::kN ? p.m : p.k, b_cols = op_b == Op::kN ? p.k : p.n;
                        if (!(whole_k && op_a == Op::kT)) EXPECT_TRUE(a_cols == 1 || a_cols * lda <= limit) << a_cols;
                        if (!(whole_k && op_b == Op::kN)) EXPECT_TRUE(b_cols == 1 || b_cols * ldb <= limit) << b_cols;
                        EXPECT_TRUE(p.m == 1 || p.m * ldc <= limit);
                        EXPECT_LE(p.n, limit);
                        if (whole_k) EXPECT_EQ(p.k, c.K);
                        if (p.k0 == 0) area += static_cast<long long>(p.m) * p.n;
                    });
                    EXPECT_EQ(area, static_cast<long long>(c.M) * c.N);
                }
}

// Where a piece starts in each operand: (m, k) of op(A), (k, n) of op(B), as registry.h stores them.
TEST(CublasPieces, OffsetsFollowTheLayout) {
    EXPECT_EQ(a_offset(Op::kN, 10, 3, 4), 3 * 10 + 4);  // A M x K: row m
    EXPECT_EQ(a_offset(Op::kT, 10, 3, 4), 4 * 10 + 3);  // A K x M: row k
    EXPECT_EQ(b_offset(Op::kN, 10, 3, 4), 4 * 10 + 3);  // B K x N: row k
    EXPECT_EQ(b_offset(Op::kT, 10, 3, 4), 3 * 10 + 4);  // B N x K: row n
    EXPECT_EQ(cublas_op(Op::kN), CUBLAS_OP_N);
    EXPECT_EQ(cublas_op(Op::kT), CUBLAS_OP_T);
}

// The baseline names its cuBLAS operations (B's first) and says where keeping K whole leaves a call
// wider than the pieces bound: A transposed spans K rows of lda whatever piece of C a call computes.
TEST(CublasPieces, BaselineDescribesItsOperationsAndWhatItCannotCut) {
    const KernelInfo* cublas = find_kernel("cublas");
    ASSERT_NE(cublas, nullptr);
    alignas(256) static float x[64];
    const GemmArgs nn{4096, 4096, 4096, 1, 0, x, 4096, x, 4096, x, 4096};
    EXPECT_EQ(cublas->describe(nn), "cublasSgemm(OP_N, OP_N) on (B, A), CUBLAS_DEFAULT_MATH");
    const GemmArgs nt{64, 32, 16, 1, 0, x, 16, x, 16, x, 32, Op::kN, Op::kT};
    EXPECT_EQ(cublas->describe(nt), "cublasSgemm(OP_T, OP_N) on (B, A), CUBLAS_DEFAULT_MATH");
    // TN, M = 2^16 = lda, K = 2^15: A spans 2^31 elements in every call, however C is cut.
    const GemmArgs wide_a{65536, 3, 32768, 1, 0, x, 65536, x, 3, x, 3, Op::kT, Op::kN};
    const std::string d = cublas->describe(wide_a);
    EXPECT_NE(d.find("cublasSgemm(OP_N, OP_T)"), std::string::npos) << d;
    EXPECT_NE(d.find("K kept whole: every call spans K rows of A, 2147483648 elements (cuBLAS fails from 2^31)"),
              std::string::npos)
        << d;
    EXPECT_EQ(d.find("of at most 2^30"), std::string::npos) << d;
    // The same shape NN is cut into pieces of rows of A that each stay within 2^30.
    const GemmArgs tall{65536, 3, 32768, 1, 0, x, 32768, x, 3, x, 3};
    EXPECT_NE(cublas->describe(tall).find("calls on pieces of C of at most 2^30 elements of an operand each"),
              std::string::npos)
        << cublas->describe(tall);
}

TEST(Registry, ValidateChecksTheGemmContract) {
    alignas(16) static float x[4];
    EXPECT_EQ(validate({4, 4, 4, 1, 0, x, 4, x, 4, x, 4}), "");
    EXPECT_EQ(validate({4, 4, 4, 1, 0, x, 3, x, 4, x, 4}), "lda must be at least K");
    EXPECT_EQ(validate({4, 4, 4, 1, 0, x, 4, x, 3, x, 4}), "ldb must be at least N");
    EXPECT_EQ(validate({4, 4, 4, 1, 0, x, 4, x, 4, x, 3}), "ldc must be at least N");
    EXPECT_EQ(validate({0, 4, 4, 1, 0, x, 4, x, 4, x, 4}), "M, N and K must be at least 1");
    EXPECT_EQ(validate({4, 4, 4, 1, 0, nullptr, 4, x, 4, x, 4}), "A, B and C must not be null");
}

// Leading dimensions by layout (registry.h): A's is at least K stored M x K, at least M stored K x M;
// B's at least N stored K x N, at least K stored N x K. M = 2, N = 3, K = 5 tells them apart.
TEST(Registry, ValidateChecksLeadingDimensionsByLayout) {
    alignas(16) static float x[4];
    auto args = [](Op a, Op b, int lda, int ldb) { return GemmArgs{2, 3, 5, 1, 0, x, lda, x, ldb, x, 3, a, b}; };
    EXPECT_EQ(validate(args(Op::kN, Op::kN, 5, 3)), "");
    EXPECT_EQ(validate(args(Op::kT, Op::kN, 2, 3)), "");
    EXPECT_EQ(validate(args(Op::kN, Op::kT, 5, 5)), "");
    EXPECT_EQ(validate(args(Op::kT, Op::kT, 2, 5)), "");
    EXPECT_EQ(validate(args(Op::kN, Op::kN, 2, 3)), "lda must be at least K");  // M is enough only transposed
    EXPECT_EQ(validate(args(Op::kT, Op::kN, 1, 3)), "lda must be at least M (A transposed)");
    EXPECT_EQ(validate(args(Op::kN, Op::kN, 5, 2)), "ldb must be at least N");
    EXPECT_EQ(validate(args(Op::kN, Op::kT, 5, 3)), "ldb must be at least K (B transposed)");  // N is not
    EXPECT_EQ(validate(args(Op::kT, Op::kT, 2, 4)), "ldb must be at least K (B transposed)");
}

TEST(Registry, LayoutNames) {
    EXPECT_EQ(layout_name(Op::kN, Op::kN), "NN");
    EXPECT_EQ(layout_name(Op::kN, Op::kT), "NT");
    EXPECT_EQ(layout_name(Op::kT, Op::kN), "TN");
    EXPECT_EQ(layout_name(Op::kT, Op::kT), "TT");
    alignas(16) static float x[4];
    EXPECT_EQ(layout_name(GemmArgs{4, 4, 4, 1, 0, x, 4, x, 4, x, 4, Op::kT, Op::kN}), "TN");
}

// A kernel without any_layout is N/A ("NN only") on NT, TN and TT and takes NN; cuBLAS takes all four.
// The listing says which kernels take every layout.
TEST(Registry, NnOnlyKernelsRefuseOtherLayouts) {
    alignas(256) static float x[64];
    const KernelInfo* cublas = find_kernel("0");
    ASSERT_NE(cublas, nullptr);
    EXPECT_TRUE(cublas->spec.any_layout);
    const nlohmann::json list = nlohmann::json::parse(kernel_list_json());
    int nn_only = 0;
    for (std::size_t i = 0; i < registry().size(); ++i) {
        const KernelInfo& k = registry()[i];
        SCOPED_TRACE(k.label());
        EXPECT_EQ(list["kernels"][i]["any_layout"], k.spec.any_layout);
        // M = 128, N = 256, K = 64 with the leading dimensions each layout needs.
        for (const auto& [a, b] : {std::pair{Op::kN, Op::kT}, std::pair{Op::kT, Op::kN}, std::pair{Op::kT, Op::kT}}) {
            const GemmArgs args{128, 256, 64, 1, 0, x, a == Op::kN ? 64 : 128, x, b == Op::kN ? 256 : 64, x, 256, a, b};
            ASSERT_EQ(validate(args), "");
            std::string why;
            try {
                why = k.can_implement(args);
            } catch (const CudaError&) {
                continue;  // a kernel that asks the GPU answers only where there is one
            }
            if (k.spec.any_layout)
                EXPECT_NE(why, "NN only") << layout_name(a, b);
            else
                EXPECT_EQ(why, "NN only") << layout_name(a, b);
        }
        nn_only += !k.spec.any_layout;
    }
    EXPECT_GT(nn_only, 0) << "no NN-only kernel: the N/A path is untested";
    EXPECT_EQ(cublas->can_implement({4, 4, 4, 1, 0, x, 4, x, 4, x, 4, Op::kT, Op::kT}), "");
    std::istringstream lines(kernel_list({"0"}));
    std::string line;
    ASSERT_TRUE(std::getline(lines, line));
    EXPECT_NE(line.find("[every layout]"), std::string::npos) << line;
}

TEST(Registry, ListJsonHasEveryKernel) {
    const nlohmann::json j = nlohmann::json::parse(kernel_list_json());
    EXPECT_EQ(j["tuning_from"], kTuningFrom);
    EXPECT_EQ(j["tuned_baseline"], kTunedBaseline);
    ASSERT_EQ(j["kernels"].size(), registry().size());
    for (std::size_t i = 0; i < registry().size(); ++i) {
        const auto& k = registry()[i];
        const auto& e = j["kernels"][i];
        EXPECT_EQ(e["number"], k.spec.number);
        EXPECT_EQ(e["label"], k.label());
        EXPECT_EQ(e["part"], k.is_sub_step() ? nlohmann::json(std::string(1, k.spec.part)) : nlohmann::json());
        EXPECT_EQ(e["precision"], to_string(k.spec.precision));
        EXPECT_EQ(e["requirements"]["min_cc"], k.spec.requirements.min_cc);
        EXPECT_EQ(e["tuning_variant"], k.is_tuning_variant());
        EXPECT_EQ(e["step"], k.step);
        EXPECT_EQ(e["baseline"], k.is_baseline()) << k.label();
        const auto string_or_null = [](const std::string& s) {
            return s.empty() ? nlohmann::json() : nlohmann::json(s);
        };
        EXPECT_EQ(e["functions"], string_or_null(k.functions())) << k.label();
        EXPECT_EQ(e["gemm_function"], string_or_null(k.spec.gemm_function ? k.spec.gemm_function : "")) << k.label();
        if (k.sass_functions().empty()) {
            EXPECT_TRUE(e["sass"].is_null()) << k.label();
        } else {
            EXPECT_EQ(e["sass"]["functions"], k.sass_functions());
            EXPECT_EQ(e["sass"]["required"], nlohmann::json(k.spec.sass.required));
            EXPECT_EQ(e["sass"]["absent"], nlohmann::json(k.spec.sass.absent));
        }
    }
}

TEST(Registry, ListHasOneLinePerKernelStartingWithItsNumber) {
    const std::string list = kernel_list();
    std::istringstream in(list);
    std::string line;
    size_t lines = 0;
    for (const auto& k : registry()) {
        ASSERT_TRUE(std::getline(in, line));
        EXPECT_TRUE(
            std::regex_search(line, std::regex("^\\s*" + std::to_string(k.spec.number) + "\\s+" + k.name + "\\s")))
            << line;
        // A sub-step's line names its key: "[sub-step 9a]".
        const std::string key = " [sub-step " + std::to_string(k.step) + k.spec.part + "]";
        EXPECT_EQ(line.find(key) != std::string::npos, k.is_sub_step()) << line;
        ++lines;
    }
    EXPECT_EQ(lines, registry().size());
}

TEST(CheckHelper, ErrorMessagesNameTheSourceRelativeToTheRepository) {
    try {
        check(cudaErrorInvalidValue);
        FAIL() << "check() did not throw";
    } catch (const CudaError& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("cudaErrorInvalidValue"), std::string::npos) << msg;
        EXPECT_NE(msg.find("(at tests/test_registry.cpp:"), std::string::npos) << msg;  // no machine path
    }
}

// Step 14's plan (no GPU needed): for K from 22 to 2^31 - 1 the fixed point's p bits and the n moduli
// its describe() names must keep the exact integer sums representable, K 2^(2p) < M_n / 2, with p as
// large as M_n allows; 8 moduli from K = 22 to 16384, more only for deeper K.
TEST(Registry, OzakiPlanKeepsTheSumsExact) {
    const KernelInfo* k = find_kernel("ozaki_int8");
    ASSERT_NE(k, nullptr);
    // The largest pairwise-coprime numbers up to 256, as the CRT needs them (an independent list).
    const int moduli[] = {256, 255, 253, 251, 247, 241, 239, 233, 229, 227, 223};
    for (long long K : {22ll, 23ll, 64ll, 255ll, 512ll, 4096ll, 8192ll, 16384ll, 30000ll, 1ll << 20, (1ll << 31) - 1}) {
        GemmArgs a;
        a.M = a.N = 1, a.K = static_cast<int>(K);
        const std::string d = k->describe(a);
        int n = 0, p = 0;
        ASSERT_EQ(std::sscanf(d.c_str(), "%d moduli (%d-bit", &n, &p), 2) << d;
        ASSERT_GE(n, 8) << d;
        ASSERT_LE(n, 11) << d;
        double log2_m = 0;
        for (int l = 0; l < n; ++l) log2_m += std::log2(moduli[l]);
        const double need = std::log2(double(K)) + 2.0 * p + 1;  // log2 of 2 K 2^(2p)
        EXPECT_LT(need, log2_m) << "K " << K << ": " << d;  // the sums fit
        EXPECT_GE(need + 2, log2_m) << "K " << K << ": " << d;  // and p + 1 bits would not
        EXPECT_GE(p, 24) << "K " << K << ": at least an FP32 significand";
        if (K <= 16384) EXPECT_EQ(n, 8) << "K " << K;
    }
}
