#include "timeline.h"

#include <algorithm>
#include <limits>
#include <sstream>

namespace sgemm {

bool records_timeline(const KernelInfo& kernel) {
    return kernel.is_tuning_variant() && kernel.name.ends_with("_timeline");
}

std::vector<TimelineRow> timeline_rows(const trace::Timeline& timeline, const std::string& step) {
    std::vector<TimelineRow> rows;
    for (const trace::BlockTimeline& b : timeline.blocks) {
        long long first = std::numeric_limits<long long>::max();
        for (const auto& role : b.cycle)
            for (const auto& k_tile : role)
                for (const long long c : k_tile)
                    if (c) first = std::min(first, c);
        if (first == std::numeric_limits<long long>::max()) continue;  // no stamp: not a sampled block
        for (int r = 0; r < trace::kRoles; ++r)
            for (int t = 0; t < trace::kKTiles; ++t)
                for (int e = 0; e < trace::kEvents; ++e)
                    if (const long long c = b.cycle[r][t][e])
                        rows.push_back(
                            {step, b.block, b.sm, trace::kRoleNames[r], trace::kEventNames[e], t, c - first});
    }
    return rows;
}

std::string timeline_csv(const std::vector<TimelineRow>& rows) {
    std::ostringstream out;
    out << "step,block,sm,role,k_tile,event,cycle\n";
    for (const TimelineRow& r : rows)
        out << r.step << ',' << r.block << ',' << r.sm << ',' << r.role << ',' << r.k_tile << ',' << r.event << ','
            << r.cycle << '\n';
    return out.str();
}

}  // namespace sgemm
