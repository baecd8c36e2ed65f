// clone_instance: unfence, set donor list, CLONE, then poll clone_status across the restart.
#include "io/mysql/clone.hpp"

#include <algorithm>
#include <charconv>
#include <thread>

#include "io/mysql/fencing.hpp"

namespace br::mysql {
namespace {

using steady = std::chrono::steady_clock;
using std::chrono::milliseconds;

milliseconds remaining(steady::time_point deadline) {
  return std::max(milliseconds{0},
                  std::chrono::duration_cast<milliseconds>(deadline - steady::now()));
}

/// Fences the recipient again, bounded by its own read timeout; false when that failed.
bool fence_again(connection& conn, const dialect& d, const connect_options& recipient) {
  fence_options fo;
  fo.budget = recipient.read_timeout;
  fo.policy.protected_users.insert(recipient.user);
  return static_cast<bool>(fence_bounded(conn, d, fo));
}

}  // namespace

result<clone_report> clone_instance(const connect_options& recipient, const dialect& d,
                                    const clone_request& req) {
  if (!d.supports_clone())
    return make_error(error_kind::other, std::string(d.name()) + " has no CLONE");
  const auto t0 = steady::now();
  clone_report report;
  const std::vector<std::string> secrets{req.donor.password};
  std::optional<std::string> previous_begin;

  {
    connect_options o = recipient;
    o.connect_timeout = std::min(recipient.connect_timeout, remaining(req.deadline));
    // The CLONE statement blocks for the whole copy: let the read wait until the deadline.
    o.read_timeout = std::max(recipient.read_timeout, remaining(req.deadline));
    auto conn = connection::open(o);
    if (!conn) return conn.error();
    // Every way out before the data is replaced fences the recipient again (best effort, bounded
    // by its command timeout; the error is what the caller needs to see): an unfenced replica
    // must not be left behind for an account with CONNECTION_ADMIN to write to.
    auto refence = [&](mysql_error e) {
      if (req.unfence_recipient) (void)fence_again(*conn, d, recipient);
      return e;
    };
    if (req.unfence_recipient) {
      for (const auto& sql : d.unfence_for_clone_sql()) {
        auto r = conn->exec(sql);
        if (!r) return refence(r.error());
      }
    }
    if (auto r = conn->exec_secret(d.set_clone_donor_list_sql(req.donor, conn->quoter()), secrets);
        !r)
      return refence(r.error());
    if (!req.donor.ssl_ca.empty())  // spec.tls: the donor's certificate must chain to the CA
      if (auto r = conn->exec(d.set_clone_ssl_ca_sql(req.donor, conn->quoter())); !r)
        return refence(r.error());
    // clone_status keeps the previous clone's row (persisted across restarts): remember when
    // that one began, so its "Completed" is never mistaken for ours.
    auto before = conn->query(d.clone_status_sql());
    if (!before) return refence(before.error());
    if (!before->rows.empty()) previous_begin = before->get(0, "begin_time");
    auto r = conn->exec_secret(d.clone_sql(req.donor, conn->quoter()), secrets);
    if (!r) {
      const auto& e = r.error();
      // 3707: "Restart server failed (mysqld is not managed by supervisor process)": the clone
      // is done but the recipient shut down; something else must start it. Keep polling.
      const bool restarting = e.kind == error_kind::lost_connection || e.code == 3707;
      // The data was not replaced: do not leave a writable stray behind.
      if (!restarting) return refence(e);
      report.connection_dropped = true;
    }
  }

  // Poll across the restart. Before the restart clone_status may still say "In Progress".
  mysql_error last = make_error(error_kind::timeout, "clone did not complete before the deadline");
  while (true) {
    const milliseconds left = remaining(req.deadline);
    if (left <= milliseconds{0}) break;
    connect_options o = recipient;
    o.connect_timeout = std::min(recipient.connect_timeout, std::max(left, milliseconds{1000}));
    ++report.reconnect_attempts;
    auto conn = connection::open(o);
    if (conn) {
      auto st = conn->query(d.clone_status_sql());
      if (st && !st->rows.empty() && st->get(0, "begin_time") == previous_begin) {
        last = make_error(error_kind::timeout, "clone_status still describes the previous clone");
      } else if (st && !st->rows.empty()) {
        report.state = st->get(0, "state").value_or("");
        if (report.state == "Completed") {
          report.elapsed = std::chrono::duration_cast<milliseconds>(steady::now() - t0);
          return report;
        }
        if (report.state == "Failed") {
          unsigned no = 0;
          auto text = st->get(0, "error_no").value_or("0");
          std::from_chars(text.data(), text.data() + text.size(), no);
          mysql_error e;
          e.kind = error_kind::server_error;
          e.code = no;
          e.message = redact("clone failed: " + st->get(0, "error_message").value_or(""), secrets);
          // A server that did not restart (the session dropped for another reason) may still
          // run with super_read_only lifted: fence it again (best effort, bounded).
          if (req.unfence_recipient) (void)fence_again(*conn, d, recipient);
          return e;
        }
        last =
            make_error(error_kind::timeout, "clone state '" + report.state + "' at the deadline");
      } else if (!st) {
        last = st.error();
      }
    } else {
      last = conn.error();
    }
    std::this_thread::sleep_for(std::min(req.reconnect_interval, remaining(req.deadline)));
  }
  last.kind = error_kind::timeout;
  last.message = "clone deadline passed; last: " + last.message;
  if (req.unfence_recipient) {
    // The fence was lifted for the CLONE and the recipient may answer still unfenced (a CLONE
    // still running, or one that ended without a restart): fence it again, bounded by its own
    // timeouts, before the caller hears of the timeout (best effort: the error is what it needs).
    auto conn = connection::open(recipient);
    if (conn) {
      if (!fence_again(*conn, d, recipient)) last.message += "; fencing it again failed";
    } else {
      last.message += "; could not connect to fence it again";
    }
  }
  return last;
}

}  // namespace br::mysql
