// probe: runs the dialect's status statements and parses the merged row into probe_result.
#include "io/mysql/probe.hpp"

#include <charconv>
#include <cstdlib>

namespace br::mysql {
namespace {

template <class Int>
bool parse_int(const std::string& s, Int& out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc{} && p == s.data() + s.size();
}

class reader {
 public:
  reader(const probe_row& row) : row_(row) {}

  std::optional<std::string> get(const std::string& col) {
    auto it = row_.find(col);
    if (it == row_.end()) {
      fail("probe result has no column '" + col + "'");
      return std::nullopt;
    }
    return it->second;
  }
  bool flag(const std::string& col) {
    auto v = get(col);
    if (!v) return false;
    if (*v == "1" || *v == "ON") return true;
    if (*v == "0" || *v == "OFF") return false;
    fail("column '" + col + "' is not a boolean: '" + *v + "'");
    return false;
  }
  template <class Int>
  Int number(const std::string& col, Int if_null = 0) {
    auto v = get(col);
    if (!v) return if_null;
    Int out{};
    if (!parse_int(*v, out)) fail("column '" + col + "' is not an integer: '" + *v + "'");
    return out;
  }
  gtid_set gtids(const std::string& col) {
    auto v = get(col);
    if (!v) return {};
    gtid_parse_error perr;
    auto set = gtid_set::parse(*v, &perr);
    if (!set) {
      fail("column '" + col + "' is not a GTID set: " + perr.to_string());
      return {};
    }
    return *set;
  }
  std::optional<double> decimal(const std::string& col) {
    auto v = get(col);
    if (!v) return std::nullopt;
    char* end = nullptr;
    double d = std::strtod(v->c_str(), &end);
    if (end != v->c_str() + v->size()) {
      fail("column '" + col + "' is not a number: '" + *v + "'");
      return std::nullopt;
    }
    return d;
  }
  const std::optional<std::string>& problem() const { return problem_; }

 private:
  void fail(std::string what) {
    if (!problem_) problem_ = std::move(what);
  }
  const probe_row& row_;
  std::optional<std::string> problem_;
};

}  // namespace

result<probe_result> parse_probe_row(const probe_row& row, const dialect& d) {
  const status_columns& c = d.probe_columns();
  reader r(row);
  probe_result p;
  p.read_only = r.flag(c.read_only);
  // A settled server never shows super_read_only ON with read_only OFF (the server turns
  // read_only on with it, and super_read_only off with read_only). That pair is what a
  // SET GLOBAL super_read_only=ON still waiting for its lock looks like (measured on 9.7):
  // nothing is enforced, and when the SET gives up both read OFF again. Not fenced, then.
  p.super_read_only = p.read_only && r.flag(c.super_read_only);
  p.gtid_executed = r.gtids(c.gtid_executed);
  p.server_uuid = r.get(c.server_uuid).value_or("");
  p.server_id = r.number<uint32_t>(c.server_id);
  p.version = r.get(c.version).value_or("");
  replica_channel& ch = p.channel;
  ch.configured = r.flag(c.channel_configured);
  ch.io = d.parse_thread_state(r.get(c.io_state));
  ch.sql = d.parse_thread_state(r.get(c.sql_state));
  ch.source_host = r.get(c.source_host).value_or("");
  ch.source_port = r.number<uint16_t>(c.source_port);
  ch.source_uuid = r.get(c.source_uuid).value_or("");
  ch.seconds_behind_source = r.decimal(c.seconds_behind_source);
  ch.last_io_errno = r.number<unsigned>(c.last_io_errno);
  ch.last_io_error = r.get(c.last_io_error).value_or("");
  ch.last_sql_errno = r.number<unsigned>(c.last_sql_errno);
  ch.last_sql_error = r.get(c.last_sql_error).value_or("");
  ch.received = r.gtids(c.received_set);
  p.uptime_s = r.number<uint64_t>(c.uptime);
  p.started_at = r.number<int64_t>(c.started_at);
  semisync_state& ss = p.semisync;
  ss.source_loaded = r.get(c.ss_source_enabled).has_value();
  ss.source_enabled = r.flag(c.ss_source_enabled);
  ss.source_on = r.flag(c.ss_source_status);
  ss.wait_point = r.get(c.ss_wait_point).value_or("");
  ss.wait_count = r.number<uint32_t>(c.ss_wait_count);
  ss.timeout_ms = r.number<uint64_t>(c.ss_timeout);
  ss.wait_no_replica = r.flag(c.ss_wait_no_replica);
  ss.clients = r.number<uint32_t>(c.ss_clients);
  ss.replica_loaded = r.get(c.ss_replica_enabled).has_value();
  ss.replica_enabled = r.flag(c.ss_replica_enabled);
  ss.replica_on = r.flag(c.ss_replica_status);
  ss.no_tx = r.number<uint64_t>(c.ss_no_tx);
  ss.wait_sessions = r.number<uint32_t>(c.ss_wait_sessions);
  if (r.problem()) return make_error(error_kind::other, *r.problem());
  return p;
}

result<probe_result> probe(connection& conn, const dialect& d, std::string_view channel) {
  const auto statements = d.probe_statements(channel, conn.quoter());
  probe_row merged;
  const auto t0 = std::chrono::steady_clock::now();
  for (const auto& sql : statements) {
    auto res = conn.query(sql);
    if (!res) return res.error();
    if (res->rows.size() > 1)
      return make_error(error_kind::other,
                        "probe statement returned " + std::to_string(res->rows.size()) + " rows");
    for (size_t i = 0; i < res->columns.size(); ++i)
      merged[res->columns[i]] = res->rows.empty() ? std::nullopt : res->rows[0][i];
  }
  const auto latency =
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0);
  auto parsed = parse_probe_row(merged, d);
  if (parsed) parsed->latency = latency;
  return parsed;
}

}  // namespace br::mysql
