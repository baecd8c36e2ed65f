// `bloodraven restore --replace` (spec.restoreInPlace's Job): the checks on a server whose data is
// about to be replaced, and the schemas it drops. Pure; the facts are read by restore_job.cpp.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "messages/gtid_set.hpp"

namespace br::backup {

/// What the restore reads from a target before replacing its data.
struct replace_facts {
  std::string gtid_mode;             ///< @@GLOBAL.gtid_mode
  bool super_read_only = false;
  bool read_only = false;
  int replicas_attached = 0;         ///< threads serving a replica ("Binlog Dump" / "Binlog Dump GTID")
  std::vector<std::string> channels; ///< replication channels of the target that are not OFF
};

/// "" when the target may be replaced, else why not (naming `target`): it must be fenced
/// (super_read_only ON: the operator fenced it; a writable server may be taking writes that
/// the restore would silently discard), serve no replica (RESET BINARY LOGS AND GTIDS would pull
/// the history from under it), replicate from nobody (its applier would write into the load) and
/// run gtid_mode ON.
std::string replace_refusal(const replace_facts& f, const std::string& target);

/// The schemas a replace drops: every one but mysql, sys, information_schema,
/// performance_schema (MySQL's) and bloodraven (the operator's: accounts, fencing state; the
/// dump's copies of its tables are loaded over it). Order kept.
std::vector<std::string> schemas_to_drop(const std::vector<std::string>& schemas);

/// The reset of a replace: `RESET BINARY LOGS AND GTIDS TO <highest index + 1>` over the names of
/// SHOW BINARY LOGS, so no binlog name of the old history is written again (the site's archive
/// holds them: a repeated name is a conflict for the archiver, or, of the same size, taken as
/// archived). No names (binary logging off): the plain reset. nullopt, with `error`, when a name
/// has no index or the next index is past MySQL's 2000000000.
std::optional<std::string> reset_statement(const std::vector<std::string>& binlog_names, std::string& error);

/// After the load (and replay) of a replace: the GTIDs the server had executed before the reset
/// (`before`) that the restored data does not hold are added to gtid_purged, so its server_uuid
/// never issues one of their numbers again (its next write would otherwise reuse the first
/// discarded number: two transactions under one GTID in the archive and the replicas). One
/// statement, the subtraction done by the server at that moment. Adding an empty set is a no-op.
std::string mark_discarded_statement(const gtid_set& before);

/// Whether a binlogged statement manages accounts (CREATE/ALTER/DROP/RENAME USER, CREATE/DROP
/// ROLE, GRANT, REVOKE, SET PASSWORD, SET DEFAULT ROLE; the server logs SET PASSWORD as ALTER
/// USER). Leading spaces and comments skipped, case-insensitive. A replace keeps the server's
/// accounts as they are, which already reflect these statements: its replay skips them
/// (--exclude-gtids) instead of failing on the first CREATE USER of an account that exists.
bool is_account_statement(std::string_view statement);

/// `name` quoted as a MySQL identifier (backticks doubled).
std::string quote_identifier(const std::string& name);

}  // namespace br::backup
