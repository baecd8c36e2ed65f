// Binlog archive plan: index parsing and the sealed-and-not-archived selection.
#include "actors/sidecar/archive/archive_plan.hpp"

#include <sstream>

namespace br::sidecar {

std::vector<index_entry> parse_binlog_index(const std::string& text, const std::string& binlog_dir) {
  std::vector<index_entry> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (line.empty()) continue;
    auto slash = line.find_last_of('/');
    index_entry e;
    e.name = slash == std::string::npos ? line : line.substr(slash + 1);
    if (e.name.empty()) continue;
    if (line.front() == '/')
      e.path = line;
    else
      e.path = binlog_dir + "/" + (line.rfind("./", 0) == 0 ? line.substr(2) : line);
    out.push_back(std::move(e));
  }
  return out;
}

archive_plan plan_archive(const std::vector<index_entry>& entries, const std::vector<uint64_t>& sizes,
                          const binlog::manifest& m) {
  archive_plan plan;
  for (size_t i = 0; i + 1 < entries.size() && i < sizes.size(); ++i) {
    const auto* have = m.find(entries[i].name);
    if (have == nullptr)
      plan.to_archive.push_back(i);
    else if (have->size != sizes[i])
      plan.conflicts.push_back(entries[i].name + ": archived with " + std::to_string(have->size) +
                               " bytes, now " + std::to_string(sizes[i]) + " (not overwritten)");
  }
  return plan;
}

}  // namespace br::sidecar
