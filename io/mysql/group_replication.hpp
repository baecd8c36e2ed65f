// Group Replication on one member (issue 22): read its view of the group, and the four commands
// the operator issues (bootstrap once, start = join, stop = leave, set_as_primary = switchover).
// Statements as observed on MySQL 9.7 (docs/group-replication.md, "The exact SQL").
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "io/mysql/connection.hpp"
#include "messages/gr.hpp"
#include "messages/mysql.hpp"

namespace br::mysql {

/// One statement, at least one row: the member's uuid, group name, whether the plugin is loaded,
/// its own VIEW_ID, and one row per replication_group_members row (member columns NULL when the
/// table is empty, i.e. the plugin is not loaded).
std::string gr_snapshot_sql();

/// Pure: the snapshot from the rows of gr_snapshot_sql. Fails (kind other) on a missing column
/// or a port that is not a number.
result<gr_snapshot> parse_gr_snapshot(const query_result& r);

result<gr_snapshot> read_gr_snapshot(connection& conn);

/// Pure: the SET GLOBAL statements that apply `s` (plugin stopped), values quoted with `q`;
/// bootstrap_group OFF, start_on_boot OFF, single_primary_mode ON and communication_stack MYSQL
/// (so s.local_address and s.group_seeds are MySQL host:port endpoints) always.
std::vector<std::string> gr_settings_sql(const gr_settings& s, const sql_quoter& q);

/// Pure: START GROUP_REPLICATION with the recovery account on the statement (never stored in
/// the recovery channel); no USER clause when `user` is empty.
std::string gr_start_sql(const std::string& user, const std::string& password,
                         const sql_quoter& q);

/// Join (or rejoin) the group: refuses (kind other) unless the member's own state is OFFLINE or
/// it has no row; applies the settings, then START. Returns the state after the START.
result<std::string> gr_start(connection& conn, const gr_settings& s, const std::string& user,
                             const std::string& password);

/// Bootstrap a new group on this member: refuses unless the member is OFFLINE and alone in its
/// table; settings, bootstrap_group ON, START, then bootstrap_group OFF in a separate statement
/// that runs whatever START did (its own failure is reported after START's).
result<std::string> gr_bootstrap(connection& conn, const gr_settings& s, const std::string& user,
                                 const std::string& password);

/// STOP GROUP_REPLICATION (a graceful leave; the member stays super_read_only).
result<void> gr_stop(connection& conn);

/// SELECT group_replication_set_as_primary(uuid, timeout): waits up to `timeout` for the running
/// transactions of the old primary before they are rolled back.
result<void> gr_set_primary(connection& conn, const std::string& member_id,
                            std::chrono::seconds timeout);

/// Guarded quorum recovery on the survivor (issue 23; the MySQL manual's procedure): refuses
/// (kind other) unless the member is ONLINE without a majority view; then SET GLOBAL
/// group_replication_force_members = `address`, reads its view every 200 ms until it is in a
/// majority view (or `deadline`), and always resets group_replication_force_members to ''
/// afterwards (on fresh sessions when this one died: START GROUP_REPLICATION refuses while it is
/// set). An empty `address` only resets it (an interrupted recovery's clean-up). Returns the
/// member's own state.
result<std::string> gr_force_members(const connect_options& opts, connection& conn,
                                     const std::string& address,
                                     std::chrono::steady_clock::time_point deadline);

/// One of the commands above (op gr_bootstrap | gr_start | gr_stop | gr_set_primary |
/// gr_force_members: the address is s.local_address) on a session
/// of its own opened from `opts` with every deadline raised to `timeout` (a START waits for the
/// member to join; a STOP for it to leave). `recovery` is the recovery account (gr_start /
/// gr_bootstrap). Answers the member's own state after a START, "" otherwise.
result<std::string> run_gr_command(connect_options opts, mysql_op op, const gr_settings& s,
                                   const mysql_target& recovery, const std::string& member_id,
                                   std::chrono::milliseconds timeout);

}  // namespace br::mysql
