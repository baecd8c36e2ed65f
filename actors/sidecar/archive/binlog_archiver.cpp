// Binlog archiver actor: tick -> probe -> scan in the detached worker -> status and metrics.
#include "actors/sidecar/archive/binlog_archiver.hpp"

#include <caf/all.hpp>

#include <nlohmann/json.hpp>

#include <poll.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "actors/sidecar/common/sidecar_metrics.hpp"
#include "io/binlog/manifest.hpp"
#include "io/log/log.hpp"
#include "actors/common/wall_clock.hpp"

namespace br::sidecar {

namespace {

using nlohmann::json;
using ms = std::chrono::milliseconds;

int64_t unix_now() { return unix_seconds(); }

json report_json(const scan_report& r) {
  return {{"primary", r.primary},     {"archived", r.archived},     {"archivedBytes", r.archived_bytes},
          {"backlog", r.backlog},     {"error", r.error},           {"lastUploadUnix", r.last_upload_unix}};
}

struct archiver_state {
  archiver_options opts;
  std::shared_ptr<sidecar_handles> handles;
  archive_worker_actor worker;
  bool busy = false;
  bool pending = false;  ///< a scan was asked for while one ran: run another when it ends
  bool primary = false;
  int64_t last_scan_at = 0;
  uint64_t scans = 0;
  uint64_t files_archived = 0;
  uint64_t bytes_archived = 0;
  uint64_t upload_failures = 0;
  int64_t last_upload_at = 0;
  size_t backlog = 0;
  std::string last_error;
  std::string location;  ///< the store's root, for status
  bool sweeping = false;
  uint64_t sweeps = 0;
  int64_t last_sweep_at = 0;
  std::string last_cutoff;
  uint64_t files_deleted = 0;
  std::string last_sweep_note;
  std::string last_sweep_error;
};

using archiver_self = binlog_archiver_actor::stateful_pointer<archiver_state>;

json status_of(const archiver_state& s) {
  auto t = [](int64_t u) { return u > 0 ? json(binlog::rfc3339(u)) : json(nullptr); };
  return {{"enabled", true},
          {"site", s.opts.scan.layout.site},
          {"storageType", s.opts.scan.storage_type},
          {"manifestPrefix", s.location + "binlogs"},
          {"primary", s.primary},
          {"lastScanAt", t(s.last_scan_at)},
          {"scans", s.scans},
          {"filesArchived", s.files_archived},
          {"bytesArchived", s.bytes_archived},
          {"backlogFiles", s.backlog},
          {"uploadFailures", s.upload_failures},
          {"lastUploadTime", t(s.last_upload_at)},
          {"lastError", s.last_error},
          {"retention", {{"enabled", !s.opts.scan.retention.cutoff_url.empty()},
                         {"sweeps", s.sweeps},
                         {"lastSweepAt", t(s.last_sweep_at)},
                         {"lastCutoff", s.last_cutoff},
                         {"filesDeleted", s.files_deleted},
                         {"lastNote", s.last_sweep_note},
                         {"lastError", s.last_sweep_error}}}};
}

void finish_scan(archiver_self self, const std::string& error) {
  auto& s = self->state;
  s.busy = false;
  s.last_scan_at = unix_now();
  ++s.scans;
  if (!error.empty()) {
    if (error != s.last_error) log::warn("archiver scan failed", {{"error", error}});
    ++s.upload_failures;
    archiver_failures_gauge().Set(static_cast<double>(s.upload_failures));
  }
  s.last_error = error;
  archiver_backlog_gauge().Set(static_cast<double>(s.backlog));
  if (s.pending) {
    s.pending = false;
    self->send(self, run_atom::value);
  }
}

void on_report(archiver_self self, const std::string& text) {
  auto& s = self->state;
  auto j = json::parse(text, nullptr, false);
  if (!j.is_object()) {
    finish_scan(self, "scan worker answered no report");
    return;
  }
  s.primary = j.value("primary", false);
  s.backlog = j.value("backlog", size_t{0});
  for (const auto& name : j.value("archived", json::array())) {
    log::info("binlog archived", {{"file", name.get<std::string>()}, {"site", s.opts.scan.layout.site}});
    ++s.files_archived;
    archived_files_counter().Increment();
  }
  s.bytes_archived += j.value("archivedBytes", uint64_t{0});
  if (auto at = j.value("lastUploadUnix", int64_t{0}); at > 0) {
    s.last_upload_at = at;
    archiver_last_upload_gauge().Set(static_cast<double>(at));
  }
  finish_scan(self, j.value("error", ""));
}

/// Starts a scan unless one runs (then one more runs after it): probe, then the worker.
void request_scan(archiver_self self) {
  auto& s = self->state;
  if (s.busy) {
    s.pending = true;
    return;
  }
  auto m = s.handles->mysql();
  if (!m) return;  // the MySQL worker is restarting; the next tick retries
  s.busy = true;
  self->request(m, s.opts.probe_timeout, probe_atom::value)
      .then(
          [=](const mysql_outcome& out) {
            if (!out.ok) {
              self->state.primary = false;
              finish_scan(self, "local MySQL: " + out.error);
              return;
            }
            // Only the primary (@@read_only = 0) uploads.
            bool primary = !out.probe.read_only;
            auto& st = self->state;
            self->request(st.worker, st.opts.scan.deadline + ms(5000), run_atom::value, primary)
                .then([=](const std::string& report) { on_report(self, report); },
                      [=](caf::error& e) { finish_scan(self, "scan worker: " + self->system().render(e)); });
          },
          [=](caf::error& e) {
            self->state.primary = false;
            finish_scan(self, "local MySQL worker: " + self->system().render(e));
          });
}

void on_sweep(archiver_self self, const std::string& text) {
  auto& s = self->state;
  s.sweeping = false;
  s.last_sweep_at = unix_now();
  auto j = json::parse(text, nullptr, false);
  if (!j.is_object()) {
    s.last_sweep_error = "scan worker answered no sweep report";
    return;
  }
  ++s.sweeps;
  s.last_cutoff = j.value("cutoff", "");
  s.last_sweep_note = j.value("note", "");
  s.last_sweep_error = j.value("error", "");
  auto deleted = j.value("deleted", json::array());
  s.files_deleted += deleted.size();
  if (!s.last_sweep_error.empty())
    log::warn("retention sweep failed", {{"error", s.last_sweep_error}, {"site", s.opts.scan.layout.site}});
  else
    log::info("retention sweep complete", {{"cutoff", s.last_cutoff},  {"deleted", deleted},
                                           {"note", s.last_sweep_note}, {"site", s.opts.scan.layout.site}});
}

/// One retention sweep in the worker (queued behind any scan, so the manifest has one writer).
void request_sweep(archiver_self self) {
  auto& s = self->state;
  if (s.sweeping || s.opts.scan.retention.cutoff_url.empty()) return;
  s.sweeping = true;
  self->request(s.worker, s.opts.scan.deadline + s.opts.scan.retention.request_timeout + ms(5000), prune_atom::value)
      .then([=](const std::string& report) { on_sweep(self, report); },
            [=](caf::error& e) {
              self->state.sweeping = false;
              self->state.last_sweep_error = "scan worker: " + self->system().render(e);
            });
}

/// Where the index lives (BLOODRAVEN_PITR_BINLOG_INDEX may be absolute).
std::pair<std::string, std::string> index_dir_and_name(const scan_options& o) {
  auto path = o.index_name.rfind('/', 0) == 0 ? o.index_name : o.binlog_dir + "/" + o.index_name;
  auto slash = path.find_last_of('/');
  return {path.substr(0, slash), path.substr(slash + 1)};
}

/// The inotify watcher (detached: it blocks up to 500 ms per round in poll()). MySQL rewrites the
/// index on every rotation (a crash-safe copy renamed over it): a close-after-write or a rename onto
/// the index name asks the archiver for a scan at once; the periodic scan stays the safety net.
ticking_actor::behavior_type index_watcher(ticking_actor::pointer self, scan_options o,
                                           binlog_archiver_actor archiver) {
  auto [dir, name] = index_dir_and_name(o);
  int fd = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd < 0 || ::inotify_add_watch(fd, dir.c_str(), IN_CLOSE_WRITE | IN_MOVED_TO) < 0) {
    log::warn("archiver: cannot watch the binlog directory; scanning every poll interval only",
              {{"dir", dir}, {"error", std::strerror(errno)}});
    if (fd >= 0) ::close(fd);
    return {[](tick_atom) {}};
  }
  self->attach_functor([fd] { ::close(fd); });
  self->send(self, tick_atom::value);
  return {[=](tick_atom) {
    pollfd p{fd, POLLIN, 0};
    bool changed = false;
    if (::poll(&p, 1, 500) > 0) {
      alignas(inotify_event) char buf[4096];
      ssize_t n;
      while ((n = ::read(fd, buf, sizeof buf)) > 0) {
        for (char* at = buf; at < buf + n;) {
          auto* ev = reinterpret_cast<inotify_event*>(at);
          if (ev->len > 0 && name == ev->name) changed = true;
          at += sizeof(inotify_event) + ev->len;
        }
      }
    }
    if (changed) self->send(archiver, run_atom::value);
    self->send(self, tick_atom::value);
  }};
}

binlog_archiver_actor::behavior_type archiver(archiver_self self, archiver_options o,
                                              std::shared_ptr<sidecar_handles> handles) {
  self->state.opts = std::move(o);
  self->state.handles = std::move(handles);
  if (!self->state.opts.scan.store) self->state.opts.scan.store = store_of(self->state.opts.scan);
  self->state.location = self->state.opts.scan.store->location();
  self->state.worker = spawn_archive_worker(self->system(), self->state.opts.scan);
  self->link_to(self->state.worker);
  if (self->state.opts.watch_index)
    self->link_to(self->system().spawn<caf::detached>(index_watcher, self->state.opts.scan,
                                                      binlog_archiver_actor{self}));
  self->send(self, tick_atom::value);
  if (!self->state.opts.scan.retention.cutoff_url.empty())
    self->delayed_send(self, self->state.opts.retention_first_delay, prune_atom::value);
  return {
      [=](tick_atom) {  // the periodic scan: re-arms itself, whatever the scans do
        request_scan(self);
        self->delayed_send(self, self->state.opts.poll_interval, tick_atom::value);
      },
      [=](run_atom) { request_scan(self); },
      [=](prune_atom) {  // the retention sweep: re-arms itself every retention interval
        request_sweep(self);
        self->delayed_send(self, self->state.opts.retention_interval, prune_atom::value);
      },
      [=](status_atom) { return status_of(self->state).dump(); },
  };
}

}  // namespace

archive_worker_actor spawn_archive_worker(caf::actor_system& sys, scan_options o) {
  return sys.spawn<caf::detached>([o](archive_worker_actor::pointer) -> archive_worker_actor::behavior_type {
    return {[o](run_atom, bool primary) {
              auto rep = archive_scan(o, [primary] { return std::optional<bool>(primary); }, unix_now);
              return report_json(rep).dump();
            },
            [o](prune_atom) {
              auto rep = retention_sweep(o);
              return json{{"swept", rep.swept}, {"cutoff", rep.cutoff}, {"deleted", rep.deleted},
                          {"note", rep.note},   {"error", rep.error}}
                  .dump();
            }};
  });
}

binlog_archiver_actor spawn_binlog_archiver(caf::actor_system& sys, archiver_options o,
                                            std::shared_ptr<sidecar_handles> handles) {
  return sys.spawn(archiver, std::move(o), std::move(handles));
}

std::string archiver_disabled_status() { return json{{"enabled", false}}.dump(); }

}  // namespace br::sidecar
