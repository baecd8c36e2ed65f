// Dialect of MySQL 8.0.22+, 8.4 LTS and 9.x (REPLICA/SOURCE syntax, performance_schema status).
#pragma once

#include "io/mysql/dialect.hpp"

namespace br::mysql {

class mysql8_dialect final : public dialect {
 public:
  std::string_view name() const override { return "mysql8"; }

  std::vector<std::string> probe_statements(std::string_view channel,
                                            const sql_quoter& q) const override;
  const status_columns& probe_columns() const override;
  thread_state parse_thread_state(const std::optional<std::string>& value) const override;

  std::string fence_sql() const override;
  std::vector<std::string> promote_sql() const override;
  std::string list_sessions_sql() const override;
  const session_columns& list_sessions_columns() const override;
  std::string kill_sql(uint64_t connection_id) const override;
  std::string list_lock_holders_sql() const override;
  std::string set_lock_wait_timeout_sql(std::chrono::seconds timeout) const override;
  std::string reset_lock_wait_timeout_sql() const override;
  std::string disable_session_binlog_sql() const override;

  std::string gtid_executed_sql() const override;
  std::string wait_for_executed_sql(const gtid_set& set, std::chrono::seconds timeout,
                                    const sql_quoter& q) const override;
  std::string stop_replica_sql(std::string_view channel, replica_threads which,
                               const sql_quoter& q) const override;
  std::string start_replica_sql(std::string_view channel, replica_threads which,
                                const sql_quoter& q) const override;
  std::string reset_replica_all_sql(std::string_view channel, const sql_quoter& q) const override;
  std::string change_source_sql(const replication_source& src, std::string_view channel,
                                const sql_quoter& q) const override;

  bool supports_clone() const override { return true; }
  std::string set_clone_donor_list_sql(const clone_donor& donor,
                                       const sql_quoter& q) const override;
  std::string clone_sql(const clone_donor& donor, const sql_quoter& q) const override;
  std::string set_clone_ssl_ca_sql(const clone_donor& donor, const sql_quoter& q) const override;
  std::string clone_status_sql() const override;
  std::vector<std::string> unfence_for_clone_sql() const override;
};

/// The shared instance (dialects are stateless).
const mysql8_dialect& mysql8();

}  // namespace br::mysql
