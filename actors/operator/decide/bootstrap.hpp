// Pure rules of how a group comes into being (docs/architecture.md "How a group comes into
// being", docs/safety.md "Bootstrap and auto-clone"):
//
//   decide_bootstrap  a new group (never had an active site, no site writable, no site wired for
//                     replication): wait, refuse, or bootstrap with a seed and one action per
//                     other site (clone | replicate | divergent)
//   clone_need        at the moment of cloning: is a CLONE needed, may the site just replicate,
//                     or does it hold transactions the donor lacks (never cloned)?
//   pick_auto_clone   an existing group: the one non-active site that came back empty
//   missing_privileges  SHOW GRANTS lines against the privileges an account needs
//
// No actor, clock or I/O here; table tests in tests/unit/bootstrap_test.cpp.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "messages/operator.hpp"
#include "messages/topology.hpp"

namespace br {

/// What the rules see of one site (from its latest debounced report).
struct bootstrap_site_facts {
  std::string name;
  site_role role = site_role::primary_candidate;
  bool reported = false;   ///< a report arrived at all
  bool reachable = false;  ///< the last poll answered (debounced state read_only or writable)
  bool writable = false;
  bool channel = false;  ///< a replication channel is configured
  std::string gtid_executed;
  int64_t polled_ms = 0;  ///< when the report's poll answered (wall ms)
};

struct bootstrap_facts {
  durable_state durable;
  std::string seed;  ///< spec.bootstrap.seedSite or its default (config::effective_seed_site)
  std::vector<bootstrap_site_facts> sites;  ///< declared order
};

enum class bootstrap_verdict : uint8_t {
  not_new,    ///< not a new group (or a pre-wired one): the ordinary rules apply
  wait,       ///< a new group, not ready yet (a site unreachable or not polled yet)
  refuse,     ///< a new group the operator will not bootstrap by itself (reason says why)
  bootstrap,  ///< promote `seed`, then bring in `sites`
};

struct bootstrap_action {
  std::string site;
  std::string action;  ///< "clone" | "replicate" | "divergent"
  std::string reason;
  std::string divergent_gtid;  ///< divergent: what the site holds that the seed lacks
  uint64_t divergent_count = 0;
  bool operator==(const bootstrap_action&) const = default;
};

struct bootstrap_decision {
  bootstrap_verdict verdict = bootstrap_verdict::not_new;
  std::string seed;
  std::string reason;
  std::vector<bootstrap_action> sites;  ///< every site but the seed, declared order
};

/// A group that never had an active site: no active or last failover target recorded, and no
/// fresh-deploy bootstrap that already promoted its seed.
bool never_had_primary(const durable_state& d);

bootstrap_decision decide_bootstrap(const bootstrap_facts& in);

/// spec.initFromBackup not Succeeded yet (`hold`: why, config::restore_bootstrap_hold; "" =
/// none): a group that never had a primary is held whole: no bootstrap, no adoption of the
/// restore target (the restore Job makes it writable while it loads), no clone, no fence of it.
/// A group that had a primary is not held (the restore refuses a server with data, so it can
/// never be overwritten).
bool restore_holds(const durable_state& d, const std::string& hold);

enum class clone_verdict : uint8_t { clone, replicate, divergent, unknown };

struct clone_need_result {
  clone_verdict verdict = clone_verdict::unknown;
  std::string reason;
};

/// `recipient`, `donor_executed`, `donor_purged`: server-format GTID sets. Clone when the
/// recipient is empty and the donor is not, or when the donor purged transactions the recipient
/// lacks; replicate when the recipient's set is a subset of the donor's and the donor's binlogs
/// still hold everything it lacks; divergent when the recipient holds transactions the donor
/// lacks (never cloned: that would throw them away); unknown when a set does not parse.
/// `recipient_tables`: InnoDB tables outside the system schemas (mysql_op::read_user_tables, read
/// only when the recipient's set is empty): an empty set with such tables is data written
/// without GTIDs (before gtid_mode=ON, or with sql_log_bin=0), so it is divergent, never
/// cloned automatically.
clone_need_result clone_need(const std::string& recipient, const std::string& donor_executed,
                             const std::string& donor_purged,
                             const std::string& recipient_tables = "");

/// A reclone requested by a person: may the recipient be cloned? Everything it holds beyond the
/// donor (`recipient` minus `donor_executed`) must be inside `confirmed` (the divergentGtid the
/// request's prefix matched; empty for a cold `confirm=` request). `discarded` is that extra set
/// (server format, "" = nothing is thrown away); when not allowed, `reason` says what was found.
/// `confirmed` = restore_discard(<token>) (a `<site>:restore=<token>` request after an in-place
/// restore): everything beyond the restored donor is confirmed discarded.
struct reclone_check_result {
  bool allowed = false;
  std::string discarded;
  uint64_t discarded_count = 0;
  std::string reason;
};
reclone_check_result reclone_check(const std::string& recipient, const std::string& donor_executed,
                                   const std::string& confirmed);
/// A reclone plan's confirmation by the in-place restore of `token` ("restore=<token>").
std::string restore_discard(const std::string& token);

/// An existing group: the first non-active site (declared order) that is reachable, fenced
/// (read-only), has an empty gtid_executed and no channel, is not RecoveryBlocked, while the
/// active site (reachable) has transactions. `not_before_ms`: per site, no attempt before this
/// wall time (backoff after a failed clone). `settled_ms`: per site, when its last bootstrap /
/// auto-clone / reclone plan ended; a report polled before that (e.g. during its CLONE, the site
/// still empty) is no evidence that it came back empty, so it waits for a newer poll.
struct auto_clone_facts {
  std::string active;
  std::vector<bootstrap_site_facts> sites;
  std::map<std::string, site_recovery> recovery;
  std::map<std::string, int64_t> not_before_ms;
  std::map<std::string, int64_t> settled_ms;
  int64_t now_ms = 0;
};

std::optional<std::string> pick_auto_clone(const auto_clone_facts& in);

/// Backoff before the next automatic attempt after `failures` failed ones (1 = first failure):
/// base x 2^(failures-1), at most 16 x base.
int64_t auto_clone_backoff_ms(int64_t base_ms, uint32_t failures);

/// The privileges (upper case, as SHOW GRANTS spells them) of `required` that the global
/// (`ON *.*`) grants among `grants` do not give; ALL [PRIVILEGES] gives every one.
std::vector<std::string> missing_privileges(const std::vector<std::string>& grants,
                                            const std::vector<std::string>& required);

/// What the operator's own account needs for bootstrap, fencing and CLONE (recipient side).
const std::vector<std::string>& operator_account_privileges();
/// What the replication account needs: replication and CLONE donor (BACKUP_ADMIN).
const std::vector<std::string>& replication_account_privileges();

std::string to_string(bootstrap_verdict v);

}  // namespace br
