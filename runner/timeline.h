// What sgemm_timeline makes of the Timeline a *_timeline kernel stamped (common/trace.cuh): one CSV row
// per stamped event, cycles relative to the block's first stamp. Host code only, tested without a GPU.
#pragma once

#include <string>
#include <vector>

#include "common/registry.h"
#include "common/trace.cuh"

namespace sgemm {

// The kernels that stamp a Timeline into their workspace: the tuning variants named *_timeline.
bool records_timeline(const KernelInfo& kernel);

// One row of the CSV: `step,block,sm,role,k_tile,event,cycle`.
struct TimelineRow {
    std::string step;  // e.g. "08"
    long long block = 0, sm = 0;
    std::string role, event;  // trace::kRoleNames, trace::kEventNames
    int k_tile = 0;
    long long cycle = 0;  // clock64() minus the block's first stamp (any role)
    friend bool operator==(const TimelineRow&, const TimelineRow&) = default;
};

// The stamped events of `timeline`, by sampled block, role, k-tile and event; blocks without a stamp
// (a grid of one block samples it once) and events never stamped (k-tiles past K) give no row.
std::vector<TimelineRow> timeline_rows(const trace::Timeline& timeline, const std::string& step);

// The CSV text: the header line, then one line per row.
std::string timeline_csv(const std::vector<TimelineRow>& rows);

}  // namespace sgemm
