// Archiver scan: read the index, plan, copy each file (temp file, fsync, rename), upsert the
// manifest after each file so an interrupted scan keeps what it finished.
#include "actors/sidecar/archive/binlog_scan.hpp"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "actors/sidecar/archive/archive_plan.hpp"
#include "config/sidecar_config.hpp"
#include "io/binlog/binlog_file.hpp"
#include "io/binlog/manifest.hpp"
#include "io/fs/atomic_file.hpp"

namespace br::sidecar {

namespace stdfs = std::filesystem;

scan_report archive_scan(const scan_options& o, const std::function<std::optional<bool>()>& is_primary,
                         const std::function<int64_t()>& now) {
  scan_report rep;
  const auto until = std::chrono::steady_clock::now() + o.deadline;
  auto primary = is_primary();
  if (!primary) {
    rep.error = "cannot read @@read_only of the local server";
    return rep;
  }
  rep.primary = *primary;
  if (!rep.primary) return rep;  // replicas never upload; the primary's archiver owns the archive

  auto index_path = o.index_name.rfind('/', 0) == 0 ? o.index_name : o.binlog_dir + "/" + o.index_name;
  auto index_text = config::read_small_file(index_path);
  if (!index_text) {
    rep.error = "cannot read the binlog index " + index_path;
    return rep;
  }
  auto entries = parse_binlog_index(*index_text, o.binlog_dir);

  binlog::manifest m;
  m.site = o.layout.site;
  std::error_code ec;
  stdfs::create_directories(o.layout.object_dir(), ec);
  if (ec) {
    rep.error = "cannot create " + o.layout.object_dir() + ": " + ec.message();
    return rep;
  }
  if (stdfs::exists(o.layout.manifest_path())) {
    std::ifstream in(o.layout.manifest_path(), std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto parsed = binlog::parse_manifest(text);
    if (!parsed.value) {
      rep.error = o.layout.manifest_path() + ": " + parsed.error + " (left as it is)";
      return rep;
    }
    if (parsed.value->site != o.layout.site) {
      rep.error = o.layout.manifest_path() + ": manifest.site is \"" + parsed.value->site +
                  "\", not \"" + o.layout.site + "\" (left as it is)";
      return rep;
    }
    m = std::move(*parsed.value);
  }

  std::vector<uint64_t> sizes;
  for (const auto& e : entries) {
    struct stat st{};
    sizes.push_back(::stat(e.path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0);
  }
  auto plan = plan_archive(entries, sizes, m);
  rep.backlog = plan.to_archive.size();
  for (size_t i : plan.to_archive) {
    if (std::chrono::steady_clock::now() > until) {
      rep.error = "scan deadline passed; " + std::to_string(rep.backlog) + " file(s) left";
      break;
    }
    const auto& e = entries[i];
    auto file = binlog::summarize_binlog_file(e.path);
    if (!file.summary) {
      rep.error = file.error;
      break;
    }
    // The next file (sealed or the one being written) starts with every transaction this one
    // ends with: its Previous_gtids event is this file's end set.
    auto next = binlog::summarize_binlog_file(entries[i + 1].path, true);
    if (!next.summary) {
      rep.error = next.error;
      break;
    }
    if (!next.summary->previous_gtids.contains(file.summary->previous_gtids)) {
      rep.error = entries[i + 1].name + " does not continue " + e.name +
                  " (its Previous_gtids lacks transactions of the earlier file)";
      break;
    }
    if (auto err = br::fs::copy_file_atomic(e.path, o.layout.object_dir() + "/" + e.name,
                                    file.summary->size, until);
        !err.empty()) {
      rep.error = err;
      break;
    }
    binlog::manifest_entry me;
    me.name = e.name;
    me.remote_path = o.layout.remote_path(e.name);
    me.size = file.summary->size;
    me.first_event_time = binlog::rfc3339(file.summary->first_event_time);
    me.last_event_time = binlog::rfc3339(file.summary->last_event_time);
    me.previous_gtids = file.summary->previous_gtids.to_compact_string();
    me.end_gtids = next.summary->previous_gtids.to_compact_string();
    me.archived_at = binlog::rfc3339(now());
    m.upsert(me);
    if (auto err = br::fs::write_file_atomic(o.layout.manifest_path(), binlog::to_json(m).dump(2) + "\n", 0640);
        !err.empty()) {
      rep.error = err;
      break;
    }
    rep.archived.push_back(e.name);
    rep.archived_bytes += me.size;
    rep.last_upload_unix = now();
    --rep.backlog;
  }
  if (rep.error.empty() && !plan.conflicts.empty()) rep.error = plan.conflicts.front();
  return rep;
}

}  // namespace br::sidecar
