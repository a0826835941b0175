#include "provenance.h"

#include <ctime>
#include <filesystem>
#include <system_error>

namespace sgemm {

std::string utc_now() {
    const std::time_t t = std::time(nullptr);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
    return buf;
}

namespace {

// A path as it goes into the JSON: relative to the repository root when it lies inside it,
// otherwise its file name alone. Committed results must not hold a machine's paths.
std::string portable_path(const std::string& arg, const std::filesystem::path& repo) {
    namespace fs = std::filesystem;
    const fs::path p(arg);
    if (!p.is_absolute() && arg.find("/") == std::string::npos) return arg;
    std::error_code ec;
    const fs::path full = fs::weakly_canonical(fs::absolute(p, ec), ec);
    if (!repo.empty()) {
        const fs::path rel = full.lexically_relative(repo);
        if (!rel.empty() && *rel.begin() != "..") return rel.generic_string();
    }
    return p.is_absolute() ? p.filename().string() : arg;
}

// The repository root: the nearest folder above the runner binary holding kernels/common/registry.h.
std::filesystem::path repository_root(const char* argv0) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (ec) exe = fs::absolute(argv0, ec);
    fs::path dir = fs::weakly_canonical(exe, ec).parent_path();
    for (; !dir.empty() && dir != dir.root_path(); dir = dir.parent_path())
        if (fs::exists(dir / "kernels" / "common" / "registry.h", ec)) return dir;
    return {};
}

}  // namespace

std::string portable_command_line(int argc, char** argv) {
    const auto repo = repository_root(argv[0]);
    std::string cmd = portable_path(argv[0], repo);
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const std::size_t eq = a.rfind("--", 0) == 0 ? a.find('=') : std::string::npos;  // --json=PATH
        if (eq != std::string::npos)
            cmd += " " + a.substr(0, eq + 1) + portable_path(a.substr(eq + 1), repo);
        else
            cmd += " " + (a.find('/') != std::string::npos ? portable_path(a, repo) : a);
    }
    return cmd;
}

}  // namespace sgemm
