#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "cli.h"
#include "common/registry.h"

using namespace sgemm;

TEST(Registry, NumbersAndNamesAreUniqueAndSorted) {
    std::set<int> numbers;
    std::set<std::string> names;
    int previous = -1;
    for (const auto& k : registry()) {
        EXPECT_TRUE(numbers.insert(k.number).second) << k.label();
        EXPECT_TRUE(names.insert(k.name).second) << k.label();
        EXPECT_GT(k.number, previous);
        previous = k.number;
        EXPECT_TRUE(std::regex_match(k.name, std::regex("[a-z0-9_x]+"))) << k.name;
        EXPECT_FALSE(k.idea.empty()) << k.label();
        EXPECT_NE(k.launch, nullptr) << k.label();
    }
}

TEST(Registry, ZeroIsCublasAndTheFirstStepsAreThere) {
    ASSERT_GE(registry().size(), 3u);
    EXPECT_EQ(registry().front().number, 0);
    EXPECT_EQ(registry().front().name, "cublas");
    ASSERT_NE(find_kernel("1"), nullptr);
    EXPECT_EQ(find_kernel("1")->name, "naive");
    ASSERT_NE(find_kernel("02_coalesced"), nullptr);
    EXPECT_EQ(find_kernel("coalesced")->number, 2);
    EXPECT_EQ(find_kernel("02")->number, 2);
    EXPECT_EQ(find_kernel("nonexistent"), nullptr);
    EXPECT_EQ(find_kernel(""), nullptr);
}

TEST(Registry, StepsAreNumberedWithoutGaps) {
    int expected = 0;
    for (const auto& k : registry()) {
        if (k.number >= 100) break;  // tuning variants (SGEMM_TUNING builds)
        EXPECT_EQ(k.number, expected++) << k.label();
    }
}

TEST(Registry, DuplicateRegistrationIsRejected) {
    EXPECT_THROW(Registration(1, "another_naive", "dup", registry().front().launch), std::logic_error);
    EXPECT_THROW(Registration(999999, "naive", "dup", registry().front().launch), std::logic_error);
}

TEST(Registry, ListHasOneLinePerKernelStartingWithItsNumber) {
    const std::string list = kernel_list();
    std::istringstream in(list);
    std::string line;
    size_t lines = 0;
    for (const auto& k : registry()) {
        ASSERT_TRUE(std::getline(in, line));
        EXPECT_TRUE(std::regex_search(line, std::regex("^\\s*" + std::to_string(k.number) + "\\s+" + k.name + "\\s")))
            << line;
        ++lines;
    }
    EXPECT_EQ(lines, registry().size());
}
