// What sgemm_timeline makes of a stamped Timeline (runner/timeline.h), on a hand-filled one: no GPU.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "timeline.h"

using namespace sgemm;
using trace::Event;
using trace::Role;

namespace {

// A zeroed Timeline, as sgemm_timeline clears the workspace before the recorded run (16 KB: on the heap).
std::unique_ptr<trace::Timeline> empty_timeline() { return std::make_unique<trace::Timeline>(); }

long long& at(trace::Timeline& t, int slot, Role role, int k_tile, Event e) {
    return t.blocks[slot].cycle[static_cast<int>(role)][k_tile][static_cast<int>(e)];
}

}  // namespace

TEST(Timeline, SampledSlots) {
    EXPECT_EQ(trace::sampled_slot(0, 1024), 0);
    EXPECT_EQ(trace::sampled_slot(512, 1024), 1);
    EXPECT_EQ(trace::sampled_slot(511, 1024), -1);
    EXPECT_EQ(trace::sampled_slot(0, 1), 0);  // one block: sampled once
    EXPECT_EQ(trace::sampled_slot(1, 3), 1);
}

TEST(Timeline, RowsAreRelativeToEachBlocksFirstStampAndSkipEmptySlots) {
    auto t = empty_timeline();
    t->blocks[0].block = 0, t->blocks[0].sm = 7;
    at(*t, 0, Role::all, 0, Event::issue) = 1000;
    at(*t, 0, Role::all, 0, Event::ready) = 1500;
    at(*t, 0, Role::all, 0, Event::compute_begin) = 1510;
    at(*t, 0, Role::all, 0, Event::compute_end) = 2600;
    at(*t, 0, Role::all, 1, Event::issue) = 1200;  // issued before k-tile 0 was ready: rows stay in k-tile order
    at(*t, 0, Role::all, 63, Event::compute_end) = 90000;
    // Slot 1: another SM's clock, with the producer's first issue before any consumer stamp.
    t->blocks[1].block = 512, t->blocks[1].sm = 40;
    at(*t, 1, Role::consumer1, 0, Event::ready) = 5000000300;
    at(*t, 1, Role::producer, 0, Event::issue) = 5000000000;

    const std::vector<TimelineRow> rows = timeline_rows(*t, "11");
    const std::vector<TimelineRow> expected = {
        {"11", 0, 7, "all", "issue", 0, 0},              // 1000: the block's first stamp
        {"11", 0, 7, "all", "ready", 0, 500},            // 1500 - 1000
        {"11", 0, 7, "all", "compute_begin", 0, 510},    // 1510 - 1000
        {"11", 0, 7, "all", "compute_end", 0, 1600},     // 2600 - 1000
        {"11", 0, 7, "all", "issue", 1, 200},            // 1200 - 1000
        {"11", 0, 7, "all", "compute_end", 63, 89000},   // the last k-tile recorded
        {"11", 512, 40, "producer", "issue", 0, 0},      // roles in enum order: producer before consumer1
        {"11", 512, 40, "consumer1", "ready", 0, 300}};  // 300 cycles after the producer's first stamp
    ASSERT_EQ(rows.size(), expected.size());
    for (std::size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(rows[i], expected[i]) << "row " << i;
}

TEST(Timeline, ABlockThatStampedNothingGivesNoRows) {
    auto t = empty_timeline();
    t->blocks[1].block = 0;  // a grid of one block: slot 1 is never sampled
    EXPECT_TRUE(timeline_rows(*t, "09a").empty());
    EXPECT_EQ(timeline_csv({}), "step,block,sm,role,k_tile,event,cycle\n");
}

TEST(Timeline, CsvHasOneLinePerRow) {
    const std::vector<TimelineRow> rows = {{"09a", 256, 3, "all", "ready", 5, 1234},
                                           {"09a", 256, 3, "all", "compute_begin", 5, 1300}};
    EXPECT_EQ(timeline_csv(rows),
              "step,block,sm,role,k_tile,event,cycle\n"
              "09a,256,3,all,5,ready,1234\n"
              "09a,256,3,all,5,compute_begin,1300\n");
}
