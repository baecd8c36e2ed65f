// Test doubles: recording platform actors (router, DNS, taints, events, store, status) and a
// scriptable mock site_io that answers from a per-site table and records every command.
#pragma once

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include <deque>
#include <map>
#include <set>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "messages/interfaces.hpp"
#include "messages/operator.hpp"
#include "messages/mysql.hpp"

namespace br::test {

using release_atom = caf::atom_constant<caf::atom("release")>;

/// What the recording platform saw. Single-threaded use under the deterministic scheduler.
struct platform_record {
  std::vector<std::tuple<std::string, std::string, std::vector<std::string>>> routes;
  std::vector<std::tuple<std::string, std::string, std::string>> dns;
  std::vector<std::tuple<std::string, std::string, bool>> taints;
  std::vector<group_event> events;
  /// Every persist request in arrival order (also held ones).
  std::vector<durable_state> persisted;
  /// The "disk": what a (re)started coordinator loads. Updated when a persist is answered true.
  bool has_disk = false;
  durable_state disk;
  /// When true, persists are held (not answered) until release_persists().
  bool hold_persists = false;
  /// When true, persists are answered false.
  bool refuse_persists = false;
  size_t loads = 0;
  std::map<std::string, std::string> status;  ///< group -> last status JSON
  size_t status_writes = 0;
  std::vector<std::string> unexpected;

  size_t count_events(const std::string& reason) const;
  const group_event* last_event(const std::string& reason) const;
};

struct recording_platform {
  platform_handles handles;
  std::shared_ptr<platform_record> rec;
  caf::actor store_raw;  ///< the store as an untyped handle (for release_atom)
};

recording_platform spawn_recording_platform(caf::actor_system& sys);

/// Kills every recording actor (call before the test ends).
void stop_recording_platform(const recording_platform& p);

/// What the mock site_io answers and what it saw.
struct site_io_record {
  /// Probe outcome per site (used when the site's script is empty). Unknown site -> refused.
  std::map<std::string, mysql_outcome> probe;
  /// One-shot probe outcomes consumed in order before falling back to `probe`.
  std::map<std::string, std::deque<mysql_outcome>> script;
  /// Non-probe answers per (site, op); default: ok. read_gtid defaults to the probe's set.
  std::map<std::pair<std::string, mysql_op>, mysql_outcome> answers;
  /// Every non-probe command except the switch upkeep, in order.
  std::vector<mysql_command> commands;
  /// heartbeat / ensure_switch commands (op and site), in order; answered "refreshed"/"armed"
  /// unless `answers` says otherwise.
  std::vector<mysql_op> switch_ops;
  std::vector<std::string> switch_sites;
  std::map<std::string, size_t> probes;  ///< probes per site
  /// Sites whose probes never answer (a hung server: SIGSTOP, a black-holed network).
  std::set<std::string> hung;
  std::vector<std::string> unexpected;

  /// Ops sent to `site` (non-probe), in order.
  std::vector<mysql_op> ops_for(const std::string& site) const;
  size_t count(const std::string& site, mysql_op op) const;
};

site_io_actor spawn_mock_site_io(caf::actor_system& sys, std::shared_ptr<site_io_record> rec);

/// Probe outcomes.
mysql_outcome writable_probe(const std::string& gtid);
mysql_outcome read_only_probe(const std::string& gtid, bool channel);
mysql_outcome failed_probe(const std::string& kind = "refused");

}  // namespace br::test
