// Archiver scan: read the index, plan, upload each file to the store (whole or not at all),
// upsert the manifest after each file so an interrupted scan keeps what it finished. The
// retention sweep prunes the manifest first, then deletes the objects.
#include "actors/sidecar/archive/binlog_scan.hpp"

#include <sys/stat.h>

#include "actors/sidecar/archive/archive_plan.hpp"
#include "config/rfc3339.hpp"
#include "config/sidecar_config.hpp"
#include "io/binlog/binlog_file.hpp"
#include "io/binlog/manifest.hpp"
#include "io/http/client.hpp"
#include "io/log/log.hpp"
#include "io/storage/pvc_store.hpp"

namespace br::sidecar {

namespace {

constexpr uint64_t max_manifest_bytes = 64ull << 20;

/// The site's manifest from the store: a new one when it does not exist; an error (never
/// overwritten) when it cannot be read or parsed or belongs to another site.
std::optional<binlog::manifest> load_manifest(storage::object_store& st, const archive_layout& l, std::string& error) {
  binlog::manifest m;
  m.site = l.site;
  auto got = st.get_bytes(l.manifest_key(), max_manifest_bytes);
  if (!got.ok()) {
    if (got.error().not_found) return m;
    error = got.error().message;
    return std::nullopt;
  }
  auto where = st.location() + l.manifest_key();
  auto parsed = binlog::parse_manifest(*got);
  if (!parsed.value) {
    error = where + ": " + parsed.error + " (left as it is)";
    return std::nullopt;
  }
  if (parsed.value->site != l.site) {
    error = where + ": manifest.site is \"" + parsed.value->site + "\", not \"" + l.site + "\" (left as it is)";
    return std::nullopt;
  }
  return std::move(*parsed.value);
}

std::string store_manifest(storage::object_store& st, const archive_layout& l, const binlog::manifest& m) {
  auto r = st.put_bytes(l.manifest_key(), binlog::to_json(m).dump(2) + "\n");
  return r.ok() ? std::string{} : r.error().message;
}

}  // namespace

std::shared_ptr<storage::object_store> store_of(const scan_options& o) {
  if (o.store) return o.store;
  return std::make_shared<storage::pvc_store>(o.layout.root);
}

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

  auto store = store_of(o);
  std::string load_error;
  auto loaded = load_manifest(*store, o.layout, load_error);
  if (!loaded) {
    rep.error = load_error;
    return rep;
  }
  binlog::manifest m = std::move(*loaded);

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
    if (auto put = store->put_file(o.layout.remote_path(e.name), e.path); !put.ok()) {
      rep.error = put.error().message;
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
    if (auto err = store_manifest(*store, o.layout, m); !err.empty()) {
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

prune_report prune_archive(const scan_options& o, std::optional<int64_t> cutoff_unix_ms) {
  prune_report rep;
  if (!cutoff_unix_ms) {
    rep.note = "no cutoff: nothing deleted";
    return rep;
  }
  rep.cutoff = config::format_rfc3339(config::timestamp(std::chrono::milliseconds(*cutoff_unix_ms)));
  auto store = store_of(o);
  std::string load_error;
  auto m = load_manifest(*store, o.layout, load_error);
  if (!m) {
    rep.error = load_error;
    return rep;
  }
  rep.swept = true;
  auto plan = plan_retention(*m, cutoff_unix_ms);
  if (plan.drop.empty()) return rep;
  // The manifest first: once it is stored without them, nothing points at the objects.
  if (auto err = store_manifest(*store, o.layout, plan.keep); !err.empty()) {
    rep.error = err;
    return rep;
  }
  for (const auto& e : plan.drop) {
    auto key = e.remote_path.empty() ? o.layout.remote_path(e.name) : e.remote_path;
    if (auto r = store->remove(key); !r.ok()) {
      log::warn("retention: delete object", {{"key", key}, {"error", r.error().message}});
      if (rep.error.empty()) rep.error = r.error().message;
      continue;
    }
    rep.deleted.push_back(e.name);
  }
  return rep;
}

prune_report retention_sweep(const scan_options& o) {
  if (o.retention.cutoff_url.empty()) {
    prune_report rep;
    rep.note = "retention off";
    return rep;
  }
  http::client_request req;
  req.url = o.retention.cutoff_url;
  req.timeout = o.retention.request_timeout;
  req.connect_timeout = std::min(o.retention.request_timeout, std::chrono::milliseconds(2000));
  req.max_response_bytes = 64 * 1024;
  if (o.retention.tls.on()) {
    req.ca_file = o.retention.tls.ca_file;
    req.cert_file = o.retention.tls.cert_file;
    req.key_file = o.retention.tls.key_file;
  }
  auto res = http::perform(req);
  if (res.error != http::client_error::none) {
    prune_report rep;
    rep.note = "operator unreachable (" + res.message + "): nothing deleted";
    return rep;
  }
  std::string why;
  auto cutoff = cutoff_from_answer(res.status, res.body, why);
  auto rep = prune_archive(o, cutoff);
  if (!cutoff) rep.note = why;
  return rep;
}

}  // namespace br::sidecar
