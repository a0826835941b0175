#include <gtest/gtest.h>

#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli.h"

using namespace sgemm;

TEST(ParseSize, AcceptsCommaAndTimesSeparators) {
    EXPECT_EQ(parse_size("4096,4096,4096"), (Size{4096, 4096, 4096}));
    EXPECT_EQ(parse_size("1,1,1"), (Size{1, 1, 1}));
    EXPECT_EQ(parse_size("33x4097x17"), (Size{33, 4097, 17}));
    EXPECT_EQ(parse_size("2147483647,1,1"), (Size{2147483647, 1, 1}));
}

TEST(ParseSize, RejectsMalformedZeroNegativeAndHuge) {
    for (const char* bad : {"", "4096", "1,2", "1,2,3,4", "a,b,c", "1,,3", "1.5,2,3", "0,1,1", "1,0,1", "1,1,0",
                            "-1,2,3", "2147483648,1,1", "1, 2,3", "99999999999999999999,1,1"})
        EXPECT_THROW(parse_size(bad), UsageError) << "'" << bad << "'";
}

TEST(ParseSize, MessagesSayWhatIsWrong) {
    try {
        parse_size("0,5,5");
        FAIL();
    } catch (const UsageError& e) {
        EXPECT_NE(std::string(e.what()).find("at least 1"), std::string::npos) << e.what();
    }
    try {
        parse_size("5,5");
        FAIL();
    } catch (const UsageError& e) {
        EXPECT_NE(std::string(e.what()).find("M,N,K"), std::string::npos) << e.what();
    }
}

namespace {
Options parse(std::vector<const char*> args) {
    args.insert(args.begin(), "sgemm_runner");
    Options o;
    EXPECT_TRUE(parse_options(static_cast<int>(args.size()), args.data(), o));
    return o;
}
}  // namespace

TEST(ParseOptions, Defaults) {
    const Options o = parse({});
    EXPECT_EQ(o.kernels, std::vector<std::string>{"all"});
    EXPECT_TRUE(o.sizes.empty());
    EXPECT_EQ(o.alpha, 1.0f);
    EXPECT_EQ(o.beta, 0.0f);
    EXPECT_TRUE(o.check);
    EXPECT_FALSE(o.hot_l2);
    EXPECT_FALSE(o.list);
    EXPECT_TRUE(o.roofline);
    EXPECT_TRUE(o.tuned_baseline);
    EXPECT_TRUE(times_tuned_baseline(o));
    EXPECT_EQ(o.inits, std::vector<Distribution>{Distribution::kUniform});
    EXPECT_FALSE(o.energy);
    EXPECT_EQ(o.energy_window_s, kDefaultEnergyWindowS);
}

TEST(ParseOptions, AllOptions) {
    const Options o =
        parse({"--kernel",     "1,naive", "-k",     "2",        "--size",   "1,2,3", "--size",     "4x5x6",
               "--alpha",      "-1.25",   "--beta", "0.5",      "--warmup", "0",     "--reps",     "7",
               "--seed",       "99",      "--json", "out.json", "--device", "1",     "--no-check", "--hot-l2",
               "--no-roofline"});
    EXPECT_EQ(o.kernels, (std::vector<std::string>{"1,naive", "2"}));
    EXPECT_EQ(o.sizes, (std::vector<Size>{{1, 2, 3}, {4, 5, 6}}));
    EXPECT_EQ(o.alpha, -1.25f);
    EXPECT_EQ(o.beta, 0.5f);
    EXPECT_EQ(o.warmup, 0);
    EXPECT_EQ(o.reps, 7);
    EXPECT_EQ(o.seed, 99u);
    EXPECT_EQ(o.json, "out.json");
    EXPECT_EQ(o.device, 1);
    EXPECT_FALSE(o.check);
    EXPECT_TRUE(o.hot_l2);
    EXPECT_FALSE(o.roofline);
}

// --no-tuned-baseline drops the tuned baseline from a run unless --kernel names it: a number, name or label
// (in a list too) names it, "all" does not.
TEST(ParseOptions, NoTunedBaselineUnlessKernelNamesIt) {
    const std::string number = std::to_string(kTunedBaseline), in_list = "1," + number, label = number + "_cublaslt";
    EXPECT_FALSE(parse({"--no-tuned-baseline"}).tuned_baseline);
    EXPECT_FALSE(times_tuned_baseline(parse({"--no-tuned-baseline"})));
    EXPECT_FALSE(times_tuned_baseline(parse({"--no-tuned-baseline", "--kernel", "all"})));
    EXPECT_FALSE(times_tuned_baseline(parse({"--no-tuned-baseline", "--kernel", "1,cublas"})));
    EXPECT_TRUE(times_tuned_baseline(parse({"--no-tuned-baseline", "--kernel", "cublaslt"})));
    EXPECT_TRUE(times_tuned_baseline(parse({"--no-tuned-baseline", "--kernel", in_list.c_str()})));
    EXPECT_TRUE(times_tuned_baseline(parse({"--no-tuned-baseline", "-k", "1", "-k", label.c_str()})));
    EXPECT_TRUE(times_tuned_baseline(parse({"--kernel", "1"})));
}

TEST(ParseOptions, RejectsBadValues) {
    for (std::vector<const char*> args : std::vector<std::vector<const char*>>{{"--size", "0,1,1"},
                                                                               {"--size", "abc"},
                                                                               {"--reps", "0"},
                                                                               {"--warmup", "-1"},
                                                                               {"--alpha", "x"},
                                                                               {"--bogus"},
                                                                               {"--device", "-2"},
                                                                               {"--alpha", "nan"},
                                                                               {"--beta", "inf"},
                                                                               {"--ld-pad", "-3"}}) {
        args.insert(args.begin(), "sgemm_runner");
        Options o;
        EXPECT_THROW(parse_options(static_cast<int>(args.size()), args.data(), o), UsageError) << args[1];
    }
}

namespace {
std::string usage_error_of(std::vector<const char*> args) {
    args.insert(args.begin(), "sgemm_runner");
    Options o;
    try {
        parse_options(static_cast<int>(args.size()), args.data(), o);
    } catch (const UsageError& e) {
        return e.what();
    }
    return "(no error)";
}
}  // namespace

TEST(ParseOptions, RangeMessagesArePlain) {
    EXPECT_EQ(usage_error_of({"--reps", "0"}), "--reps must be at least 1");
    EXPECT_EQ(usage_error_of({"--warmup", "-1"}), "--warmup must be 0 or more");
    EXPECT_EQ(usage_error_of({"--ld-pad", "-1"}), "--ld-pad must be 0 or more");
    EXPECT_NE(usage_error_of({"--offset", "-1"}).find("--offset"), std::string::npos);
}

TEST(ParseOptions, RefusesNonFiniteScalars) {
    for (const char* v : {"nan", "inf", "-inf", "NaN"}) {
        EXPECT_EQ(usage_error_of({"--alpha", v}), "--alpha must be a finite number") << v;
        EXPECT_EQ(usage_error_of({"--beta", v}), "--beta must be a finite number") << v;
    }
}

// --energy: windows of the default length; --sustained SECONDS: energy too, with windows that long.
TEST(ParseOptions, EnergyAndSustained) {
    const Options energy = parse({"--energy"});
    EXPECT_TRUE(energy.energy);
    EXPECT_EQ(energy.energy_window_s, kDefaultEnergyWindowS);
    const Options sustained = parse({"--sustained", "20"});
    EXPECT_TRUE(sustained.energy);
    EXPECT_EQ(sustained.energy_window_s, 20.0);
    EXPECT_EQ(parse({"--energy", "--sustained", "0.25"}).energy_window_s, 0.25);
    EXPECT_EQ(parse({"--sustained", "3600"}).energy_window_s, kMaxEnergyWindowS);
    EXPECT_EQ(parse({"--sustained=1e-3"}).energy_window_s, 1e-3);
}

TEST(ParseOptions, RefusesSustainedOutsideItsRange) {
    for (const char* bad : {"0", "-1", "-0", "nan", "inf", "abc", "3600.5", "1e9", "5s", " 5", "0x10"})
        EXPECT_EQ(
            usage_error_of({"--sustained", bad}),
            "--sustained must be a number of seconds, more than 0 and at most 3600 (got '" + std::string(bad) + "')")
            << bad;
    EXPECT_THROW(parse_sustained(""), UsageError);
    EXPECT_EQ(parse_sustained("2.5"), 2.5);
}

TEST(ParseOptions, RefusesAJsonFileThatCannotBeCreated) {
    const std::string msg = usage_error_of({"--json", "/nonexistent-sgemm-dir/x.json"});
    EXPECT_NE(msg.find("cannot create"), std::string::npos) << msg;
    EXPECT_NE(usage_error_of({"--json", "."}).find("directory"), std::string::npos);
}

TEST(ParseOptions, LeadingDimensionsStayBelow2To31) {
    EXPECT_NE(usage_error_of({"--size", "1,1,2147483647", "--ld-pad", "1"}).find("2^31"), std::string::npos);
    EXPECT_EQ(usage_error_of({"--size", "1,1,2147483646", "--ld-pad", "1"}), "(no error)");
    const Options o = parse({"--ld-pad", "3", "--offset", "1", "-v", "--tune"});
    EXPECT_EQ(o.ld_pad, 3);
    EXPECT_EQ(o.offset, 1);
    EXPECT_TRUE(o.verbose);
    EXPECT_TRUE(o.tune);
}

TEST(ParseOptions, HelpReturnsFalse) {
    const char* args[] = {"sgemm_runner", "--help"};
    Options o;
    testing::internal::CaptureStdout();
    EXPECT_FALSE(parse_options(2, args, o));
    const std::string help = testing::internal::GetCapturedStdout();
    for (const char* opt : {"--kernel", "--size",     "--alpha",   "--beta",   "--warmup",   "--reps",
                            "--seed",   "--json",     "--list",    "--device", "--no-check", "--hot-l2",
                            "--ld-pad", "--offset",   "--verbose", "--tune",   "--init",     "--no-tuned-baseline",
                            "--energy", "--sustained"})
        EXPECT_NE(help.find(opt), std::string::npos) << opt;
    for (const DistributionInfo& d : kDistributions) EXPECT_NE(help.find(d.name), std::string::npos) << d.name;
}

TEST(ParseOptions, InitNamesListsAndAll) {
    EXPECT_EQ(parse({"--init", "wide"}).inits, std::vector<Distribution>{Distribution::kWide});
    EXPECT_EQ(parse({"--init", "special,integers", "--init", "tiny", "--init", "integers"}).inits,
              (std::vector<Distribution>{Distribution::kSpecial, Distribution::kIntegers, Distribution::kTiny}));
    const std::vector<Distribution> all = parse({"--init", "all"}).inits;
    ASSERT_EQ(all.size(), kDistributions.size());
    for (std::size_t i = 0; i < all.size(); ++i) EXPECT_EQ(all[i], kDistributions[i].id);
}

TEST(ParseOptions, UnknownInitListsValidNames) {
    for (const char* bad : {"bogus", "uniform,bogus", "", "Uniform"}) {
        const std::string msg = usage_error_of({"--init", bad});
        EXPECT_NE(msg.find("unknown --init"), std::string::npos) << bad << ": " << msg;
        for (const DistributionInfo& d : kDistributions) EXPECT_NE(msg.find(d.name), std::string::npos) << msg;
    }
    EXPECT_THROW(select_distributions({"wide,,tiny"}), UsageError);
}

namespace {
// The first two steps after cuBLAS: the resolver's tests name no step.
const KernelInfo& first_step() { return registry().at(1); }
const KernelInfo& second_step() { return registry().at(2); }
}  // namespace

TEST(SelectKernels, AllNumbersNamesAndLists) {
    const auto all = select_kernels({"all"});
    ASSERT_EQ(all.size(), registry().size() - 2);
    for (const KernelInfo* k : all) EXPECT_FALSE(k->is_baseline()) << k->label() << ": a baseline, not a step";
    const KernelInfo &a = first_step(), &b = second_step();
    // A number, a name and a label, in a comma list and repeated: registry order, no duplicates.
    const auto two = select_kernels({std::to_string(b.spec.number) + "," + a.name, a.label()});
    EXPECT_EQ(two, (std::vector<const KernelInfo*>{&a, &b}));
    EXPECT_EQ(select_kernels({"0" + std::to_string(a.spec.number)}), std::vector<const KernelInfo*>{&a});
    EXPECT_TRUE(select_kernels({"0"}).empty());
    EXPECT_TRUE(select_kernels({"cublas"}).empty());
    EXPECT_TRUE(select_kernels({"cublaslt," + std::to_string(kTunedBaseline)}).empty());
}

TEST(SelectKernels, UnknownKernelListsValidOnes) {
    try {
        select_kernels({first_step().name + ",nonexistent"});
        FAIL();
    } catch (const UsageError& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("unknown kernel 'nonexistent'"), std::string::npos) << msg;
        EXPECT_NE(msg.find(first_step().name), std::string::npos) << "the message lists the valid kernels";
    }
    EXPECT_THROW(select_kernels({"12345"}), UsageError);
    EXPECT_THROW(select_kernels({""}), UsageError);
}

// --list --kernel KEYS: what --kernel selects, cuBLAS included where named, with the same errors.
TEST(ResolveKernels, ListsWhatTheKeysNameCublasIncludedWhereNamed) {
    const KernelInfo& cublas = registry().front();
    const KernelInfo &a = first_step(), &b = second_step();
    EXPECT_EQ(resolve_kernels({"all"}).size(), registry().size());
    EXPECT_EQ(resolve_kernels({"0"}), std::vector<const KernelInfo*>{&cublas});
    EXPECT_EQ(resolve_kernels({"cublas," + a.label()}), (std::vector<const KernelInfo*>{&cublas, &a}));
    EXPECT_EQ(resolve_kernels({b.label() + "," + std::to_string(a.spec.number), a.name}),
              (std::vector<const KernelInfo*>{&a, &b}));
    for (const char* bad : {"nonexistent", "", "12345"}) {
        std::string resolve_error, select_error;
        try {
            resolve_kernels({bad});
        } catch (const UsageError& e) {
            resolve_error = e.what();
        }
        try {
            select_kernels({bad});
        } catch (const UsageError& e) {
            select_error = e.what();
        }
        EXPECT_NE(resolve_error, "") << "'" << bad << "' was resolved";
        EXPECT_EQ(resolve_error, select_error) << "--list --kernel and a run say the same about '" << bad << "'";
    }
}

TEST(KernelList, OnlyTheSelectedKernels) {
    const KernelInfo &a = first_step(), &b = second_step();
    EXPECT_EQ(kernel_list(), kernel_list({"all"}));
    std::istringstream lines(kernel_list({a.label() + "," + b.name}));
    std::string line;
    for (const KernelInfo* k : {&a, &b}) {
        ASSERT_TRUE(std::getline(lines, line));
        EXPECT_TRUE(
            line.substr(line.find_first_not_of(' ')).starts_with(std::to_string(k->spec.number) + "  " + k->name))
            << line;
    }
    EXPECT_FALSE(std::getline(lines, line)) << "one line too many: " << line;

    const nlohmann::json j = nlohmann::json::parse(kernel_list_json({std::to_string(b.spec.number), "cublas"}));
    ASSERT_EQ(j["kernels"].size(), 2u);
    EXPECT_EQ(j["kernels"][0]["number"], 0);
    EXPECT_EQ(j["kernels"][1]["label"], b.label());
    EXPECT_EQ(j["tuning_from"], kTuningFrom);
    EXPECT_EQ(nlohmann::json::parse(kernel_list_json())["kernels"].size(), registry().size());
    EXPECT_THROW(kernel_list_json({"nonexistent"}), UsageError);
    EXPECT_THROW(kernel_list({"nonexistent"}), UsageError);
}
