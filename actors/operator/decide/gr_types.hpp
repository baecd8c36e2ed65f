// Group Replication's part of the engine's values (issue 22): the rules a GR group is run by, what
// the step remembers about it, its one durable change, its input and its effects. group_step.hpp
// holds them beside the async ones; gr_step.cpp decides with them.
#pragma once

#include <caf/timespan.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "actors/operator/decide/gr_quorum.hpp"
#include "actors/operator/decide/gr_view.hpp"
#include "messages/decisions.hpp"
#include "messages/gr.hpp"
#include "messages/mysql.hpp"

namespace br {

/// A person's request for a guarded quorum recovery (issue 23): its value is a request id (any
/// text: a timestamp, a ticket), consumed once. `kubectl bloodraven group recover` sets it.
inline constexpr const char* force_quorum_recovery_annotation =
    "bloodraven.shipstream.io/force-quorum-recovery";

/// The spec values of a Group Replication group (config::group_replication_spec and the sites').
struct gr_rules {
  bool enabled = false;  ///< spec.replication.mode == groupReplication
  std::string designated;  ///< the one member allowed to bootstrap (the seed site)
  /// spec...groupName; empty: `generated_name` is pinned at the first bootstrap.
  std::string spec_group_name;
  /// A fresh UUID made by the coordinator at its start (the step has no randomness); used only
  /// when neither the spec nor the durable state has a name.
  std::string generated_name;
  std::map<std::string, std::string> local_address;  ///< site -> host:port (XCom)
  /// Sites no longer in the spec whose member may still be in the group (Kubernetes mode: their
  /// workload still exists); polled and taken out by the scale-down (decide/gr_scale_down.hpp).
  std::vector<std::string> leaving;
  std::string consistency = "BEFORE_ON_PRIMARY_FAILOVER";
  std::string exit_state_action = "READ_ONLY";
  int32_t auto_rejoin_tries = 3;
  bool recovery_ssl = true;
  std::string ssl_ca;  ///< spec.tls: the members' CA file (gr_settings::ssl_ca); "" = not verified
  caf::timespan max_switchover_delay{std::chrono::seconds(60)};
  /// How long a START / bootstrap / STOP may take before it counts as failed.
  caf::timespan command_timeout{std::chrono::seconds(120)};
  /// After a failed command, wait this long before the next automatic one.
  caf::timespan retry_delay{std::chrono::seconds(10)};
};

/// What gr_step remembers between inputs (memory only; the durable part is durable_state.gr).
struct gr_runtime {
  gr::group_view view;       ///< the latest cross-validated verdict
  bool evaluated = false;    ///< `view` holds a verdict
  /// One command at a time: the site and op in flight ("" = none).
  std::string command_site;
  mysql_op command_op = mysql_op::gr_probe;
  std::optional<mono_time> last_failure;  ///< of the latest failed command (retry_delay)
  std::optional<mono_time> last_command_end;  ///< nothing new for two poll intervals after it
  /// A switchover through set_as_primary: its target site and deadline ("" = none).
  std::string switchover_target;
  std::optional<mono_time> switchover_deadline;
  std::string note;  ///< one line for the status: what the group waits for, or ""
  /// Quorum loss (gr::quorum_block): the group is Blocked, the operator only observes.
  bool blocked = false;
  std::string blocked_reason;
  /// While Blocked: the recovery the operator would run if asked now (status, the plugin).
  std::optional<gr::recovery_plan> preview;
  /// The latest recovery request's outcome for the QuorumRecovery condition: its reason
  /// (QuorumRecoveryStarted | QuorumRecovered | QuorumRecoveryRefused | QuorumRecoveryFailed)
  /// and message ("" = none this run).
  std::string recovery_reason;
  std::string recovery_message;
  bool recovery_cleanup = false;  ///< the command in flight is an interrupted recovery's clean-up
  /// Scale-down (decide/gr_scale_down.hpp): the leaving member the last decision was about and
  /// what it does or waits for ("" = nobody leaves).
  std::string leave_site;
  std::string leave_note;
};

/// The durable Group Replication record changes; `active` (when set) makes that site the view's
/// active site, epoch + 1. Sticky members never go back (apply_change).
struct change_gr {
  gr_durable gr;
  std::optional<std::string> active;
  std::string from;                  ///< the active site before (Events)
  bool before_bootstrapped = false;  ///< durable bootstrapped before (Events)
  bool start_bootstrap = false;      ///< once stored, the bootstrap command is sent
  /// Guarded quorum recovery: `gr`'s recovery_* members are recorded (open) before the command
  /// is sent; `recovery_end` closes the record, and `view_max_after` (a completed recovery) sets
  /// observed_view_max to the forced view's size, the one exception to it only growing.
  bool recovery_begin = false;
  bool recovery_end = false;
  /// Scale-down: `gr.leaving` replaces the record (a leave recorded before its STOP, Stopped, or
  /// dropped for a site declared again or gone).
  bool leave_update = false;
  std::string leave_stop;  ///< once stored, STOP GROUP_REPLICATION is sent to this leaving site
  std::optional<uint64_t> view_max_after;
  int64_t at_ms = 0;
};

namespace input {
/// A Group Replication command finished; nullopt when the request itself failed.
struct gr_done {
  std::string site;
  mysql_op op = mysql_op::gr_start;
  std::optional<mysql_outcome> outcome;
};
}  // namespace input

namespace effect {
/// Run a Group Replication command on `site` (bootstrap, start, stop, set_primary of
/// `member_id`); answer with input::gr_done.
struct gr_command {
  std::string site;
  mysql_op op = mysql_op::gr_start;
  std::string member_id;
  gr_settings settings;
};
}  // namespace effect

/// The sticky merge of a GR durable record: bootstrapped never goes back, a set group name never
/// changes, observed_view_max only grows, bootstrap_started stays once set.
gr_durable merge_gr(const gr_durable& before, const gr_durable& next);

}  // namespace br
