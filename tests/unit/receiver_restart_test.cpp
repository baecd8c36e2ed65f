// Table test of restart_receivers (actors/operator/decide/receiver_restart.hpp): a follower whose
// receiver stopped for good is restarted only when its source is healthy and nothing else owns it.
#include <boost/test/unit_test.hpp>

#include "actors/operator/decide/receiver_restart.hpp"

using namespace br;
using namespace std::chrono_literals;

namespace {

site_report follower(bool io_off, uint32_t sql_errno = 0) {
  site_report r;
  r.probe_ok = true;
  r.probe.read_only = r.probe.super_read_only = true;
  r.probe.channel_configured = true;
  r.probe.io_state = io_off ? "OFF" : "ON";
  r.probe.sql_state = "ON";
  r.probe.last_sql_errno = sql_errno;
  return r;
}

site_report primary() {
  site_report r;
  r.probe_ok = true;
  return r;
}

receiver_restart_input base() {
  receiver_restart_input in;
  in.active_site = "a";
  in.reports["a"] = primary();
  in.reports["b"] = follower(true);
  in.reports["c"] = follower(false);
  in.now = mono_time(100h);
  return in;
}

}  // namespace

BOOST_AUTO_TEST_CASE(receiver_restart_table) {
  struct row {
    const char* what;
    std::function<void(receiver_restart_input&)> change;
    std::vector<std::string> expect;
  };
  const std::vector<row> rows = {
      {"stopped receiver, healthy source", [](auto&) {}, {"b"}},
      {"still retrying (CONNECTING)", [](auto& in) { in.reports["b"].probe.io_state = "CONNECTING"; }, {}},
      {"applier error (maybe divergence)", [](auto& in) { in.reports["b"] = follower(true, 1062); }, {}},
      {"source not writable", [](auto& in) { in.reports["a"].probe.read_only = true; }, {}},
      {"source probe failed", [](auto& in) { in.reports["a"].probe_ok = false; }, {}},
      {"no active site", [](auto& in) { in.active_site.clear(); }, {}},
      {"a plan runs", [](auto& in) { in.busy = true; }, {}},
      {"recovery owns it", [](auto& in) { in.recovery["b"].state = "RecoveryBlocked"; }, {}},
      {"restore-pending (not recloned since an in-place restore)",
       [](auto& in) { in.restore_pending = {"b"}; }, {}},
      {"another site restore-pending", [](auto& in) { in.restore_pending = {"c"}; }, {"b"}},
      {"restarted 10 s ago", [](auto& in) { in.last_restart["b"] = in.now - 10s; }, {}},
      {"restarted 31 s ago", [](auto& in) { in.last_restart["b"] = in.now - 31s; }, {"b"}},
      {"no channel", [](auto& in) { in.reports["b"].probe.channel_configured = false; }, {}},
      {"channel last reached the active primary", [](auto& in) {
         in.reports["a"].probe.server_uuid = "uuid-a";
         in.reports["b"].probe.source_uuid = "uuid-a"; }, {"b"}},
      {"channel still points at another (the deposed) primary", [](auto& in) {
         in.reports["a"].probe.server_uuid = "uuid-a";
         in.reports["b"].probe.source_uuid = "uuid-old"; }, {}},
      {"writable follower", [](auto& in) { in.reports["b"].probe.read_only = false;
                                           in.reports["b"].probe.super_read_only = false; }, {}},
      {"the active site itself", [](auto& in) { in.active_site = "b";
                                                in.reports["b"].probe.read_only = false;
                                                in.reports["b"].probe.super_read_only = false; }, {}},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.what) {
      auto in = base();
      r.change(in);
      BOOST_TEST(restart_receivers(in) == r.expect, boost::test_tools::per_element());
    }
  }
}
