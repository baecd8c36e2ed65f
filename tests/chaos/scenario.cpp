// Chaos harness scenario driver and end-of-run checks (S1, S3, S4/convergence).
#include "tests/chaos/scenario.hpp"

#include "messages/gtid_set.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <thread>

using namespace std::chrono_literals;

namespace br::chaos {

namespace {

std::string fmt_s(int64_t ms) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f", static_cast<double>(ms) / 1000.0);
  return b;
}

bool contains(const std::vector<std::string>& v, const std::string& x) {
  for (const auto& e : v)
    if (e == x) return true;
  return false;
}

/// End state of the group as seen out of band; `why` says what is not converged yet.
struct final_state {
  int primary = -1;
  std::string why;
  std::set<int64_t> present;
  std::vector<std::string> blocked;
};

/// The ids of the acknowledged-write table as the primary holds them (f.why set when unreadable).
void read_present(cluster& c, final_state& f) {
  auto ids = c.sql(f.primary).query("SELECT id FROM appdb.chaos_writes");
  if (!ids) {
    f.why = "cannot read ids on the primary";
    return;
  }
  for (const auto& r : *ids)
    if (r[0]) f.present.insert(std::stoll(*r[0]));
}

final_state observe(cluster& c, const expectations& e) {
  final_state f;
  std::vector<int> writable;
  std::vector<bool> reachable(cluster::sites);
  for (int k = 0; k < cluster::sites; ++k) {
    auto ro = c.sql(k).scalar("SELECT @@global.read_only");
    reachable[k] = ro.has_value();
    if (ro && *ro == "0") writable.push_back(k);
  }
  if (writable.size() != 1) {
    f.why = std::to_string(writable.size()) + " writable sites";
    return f;
  }
  f.primary = writable[0];
  auto view = c.active_view();
  std::string active = view.is_object() ? view.value("activeSite", "") : "";
  if (active != cluster::site_name(f.primary)) {
    f.why = "operator names '" + active + "' but " + cluster::site_name(f.primary) + " is writable";
    return f;
  }
  f.blocked = c.divergent_sites();
  auto pg = c.sql(f.primary).scalar("SELECT REPLACE(@@global.gtid_executed, '\\n', '')");
  if (!pg) {
    f.why = "primary gtid_executed unreadable";
    return f;
  }
  for (int k = 0; k < cluster::sites; ++k) {
    if (k == f.primary) continue;
    std::string name = cluster::site_name(k);
    bool blocked = contains(f.blocked, name);
    if (!reachable[k]) {
      f.why = name + " unreachable";
      return f;
    }
    auto rows = c.sql(k).query(
        "SELECT c.HOST, c.PORT, s.SERVICE_STATE, a.SERVICE_STATE FROM "
        "performance_schema.replication_connection_configuration c JOIN "
        "performance_schema.replication_connection_status s USING (CHANNEL_NAME) JOIN "
        "performance_schema.replication_applier_status a USING (CHANNEL_NAME) WHERE "
        "c.CHANNEL_NAME=''");
    bool replicating = rows && rows->size() == 1 &&
                       (*rows)[0][0].value_or("") == c.site_addr(f.primary) &&
                       (*rows)[0][1].value_or("") == std::to_string(c.mysql_port(f.primary)) &&
                       (*rows)[0][2].value_or("") == "ON" && (*rows)[0][3].value_or("") == "ON";
    auto g = c.sql(k).scalar("SELECT REPLACE(@@global.gtid_executed, '\\n', '')");
    if (replicating) {
      // S4: a replica's GTID set must be contained in the primary's.
      auto sub = c.sql(f.primary).scalar("SELECT GTID_SUBSET('" + g.value_or("") + "', '" + *pg + "')");
      if (sub && *sub != "1") {
        f.why = "S4: " + name + " replicates but its GTID set is not contained in the primary's";
        return f;
      }
      continue;
    }
    if (blocked && (e.allow_blocked || contains(e.must_block, name))) {
      auto ro = c.sql(k).scalar("SELECT @@global.super_read_only");
      if (ro && *ro == "1") continue;  // blocked and fenced: the reported end state
      f.why = name + " blocked but not fenced";
      return f;
    }
    f.why = name + " not replicating from " + cluster::site_name(f.primary) +
            (blocked ? " (reported blocked)" : "");
    return f;
  }
  for (const auto& m : e.must_block)
    if (!contains(f.blocked, m)) {
      f.why = m + " is not reported divergent";
      return f;
    }
  // Replicas caught up enough for S3: read the ids from the primary itself.
  read_present(c, f);
  return f;
}

/// Group Replication end state: one ONLINE PRIMARY, every other member an ONLINE SECONDARY of
/// the same view (in its own table), the operator naming the primary, every member's
/// gtid_executed inside the primary's (S4).
final_state observe_gr(cluster& c) {
  final_state f;
  std::vector<int> primaries;
  for (int k = 0; k < cluster::sites; ++k) {
    auto rows = c.sql(k).query(
        "SELECT MEMBER_STATE, MEMBER_ROLE, (SELECT COUNT(*) FROM "
        "performance_schema.replication_group_members WHERE MEMBER_STATE='ONLINE') FROM "
        "performance_schema.replication_group_members WHERE MEMBER_ID=@@server_uuid");
    const std::string name = cluster::site_name(k);
    if (!rows || rows->size() != 1) {
      f.why = name + " unreachable or not in a group";
      return f;
    }
    const auto& r = (*rows)[0];
    if (r[0].value_or("") != "ONLINE" || r[2].value_or("") != std::to_string(cluster::sites)) {
      f.why = name + " is " + r[0].value_or("?") + " with " + r[2].value_or("?") + " ONLINE in its view";
      return f;
    }
    if (r[1].value_or("") == "PRIMARY") primaries.push_back(k);
  }
  if (primaries.size() != 1) {
    f.why = std::to_string(primaries.size()) + " PRIMARY members";
    return f;
  }
  f.primary = primaries[0];
  auto view = c.active_view();
  std::string active = view.is_object() ? view.value("activeSite", "") : "";
  if (active != cluster::site_name(f.primary)) {
    f.why = "operator names '" + active + "' but " + cluster::site_name(f.primary) + " is PRIMARY";
    return f;
  }
  auto pg = c.sql(f.primary).scalar("SELECT REPLACE(@@global.gtid_executed, '\\n', '')");
  if (!pg) {
    f.why = "primary gtid_executed unreadable";
    return f;
  }
  for (int k = 0; k < cluster::sites; ++k) {
    if (k == f.primary) continue;
    auto g = c.sql(k).scalar("SELECT REPLACE(@@global.gtid_executed, '\\n', '')");
    auto sub = g ? c.sql(f.primary).scalar("SELECT GTID_SUBSET('" + *g + "', '" + *pg + "')")
                 : std::nullopt;
    if (!sub || *sub != "1") {
      f.why = "S4: " + cluster::site_name(k) + "'s GTID set is not contained in the primary's";
      return f;
    }
  }
  read_present(c, f);
  return f;
}

std::string work_dir_for(const std::string& name) {
  const char* base = std::getenv("BR_CHAOS_DIR");
  std::string b = base && *base ? base : "/tmp/br-chaos-" + std::to_string(getpid());
  return b + "/" + name;
}

}  // namespace

bool scenario_context::wait_until(const std::function<bool()>& pred, int seconds) {
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (std::chrono::steady_clock::now() < until) {
    if (pred()) return true;
    std::this_thread::sleep_for(100ms);
  }
  return pred();
}

bool scenario_context::wait_active(const std::string& site, int seconds) {
  return wait_until(
      [&] {
        auto v = c.active_view();
        return v.is_object() && v.value("activeSite", "") == site;
      },
      seconds);
}

bool scenario_context::wait_replicas_caught_up(int primary, int seconds) {
  return wait_until(
      [&] {
        auto g = c.sql(primary).scalar("SELECT REPLACE(@@global.gtid_executed, '\\n', '')");
        if (!g) return false;
        for (int k = 0; k < cluster::sites; ++k) {
          if (k == primary) continue;
          auto sub = c.sql(k).scalar("SELECT GTID_SUBSET('" + *g + "', @@global.gtid_executed)");
          if (!sub || *sub != "1") return false;
        }
        return true;
      },
      seconds);
}

std::optional<uint64_t> scenario_context::not_received(int source, int replica) {
  auto g = c.sql(source).scalar("SELECT REPLACE(@@global.gtid_executed, '\\n', '')");
  auto r = c.sql(replica).scalar("SELECT REPLACE(RECEIVED_TRANSACTION_SET, '\\n', '') FROM "
                                 "performance_schema.replication_connection_status WHERE CHANNEL_NAME=''");
  auto gs = g ? br::gtid_set::parse(*g) : std::nullopt;
  auto rs = r ? br::gtid_set::parse(*r) : std::nullopt;
  if (!gs || !rs) return std::nullopt;
  return gs->subtract(*rs).count();
}

void scenario_context::sleep_s(double s) {
  std::this_thread::sleep_for(std::chrono::milliseconds(static_cast<int64_t>(s * 1000)));
}

scenario_result run_scenario(const scenario& s) {
  scenario_result res;
  auto dir = work_dir_for(s.name);
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  int64_t t_start = now_ms();
  std::ostringstream line;
  line << "chaos: scenario=" << s.name << " policy=" << s.params.policy;
  if (s.params.tls) line << " tls=1";
  try {
    cluster c(s.params, dir);
    workload::options load;
    if (s.expect.probe_period_ms > 0) load.probe_period_ms = s.expect.probe_period_ms;
    workload w(c, load);
    scenario_context ctx{c, w, {}, {}};
    w.start();
    ctx.sleep_s(3);  // warm-up: acks on the healthy primary
    auto v0 = c.active_view();
    std::string active0 = v0.is_object() ? v0.value("activeSite", "") : "";
    int64_t epoch0 = v0.is_object() ? v0.value("epoch", int64_t{0}) : -1;
    int64_t fault_ms = now_ms();
    c.note("fault: " + s.name);
    if (s.fault) s.fault(ctx);
    c.note("restore");
    if (s.restore) s.restore(ctx);
    final_state f;
    bool converged = ctx.wait_until(
        [&] {
          f = s.params.gr ? observe_gr(c) : observe(c, s.expect);
          return f.why.empty();
        },
        s.expect.converge_seconds);
    int64_t converged_ms = now_ms();
    ctx.sleep_s(2);  // writes continue on the converged group
    w.pause(true);
    ctx.sleep_s(0.5);  // in-flight writes finish before the ids are read
    if (converged) {
      ctx.wait_replicas_caught_up(f.primary, 20);
      auto again = s.params.gr ? observe_gr(c) : observe(c, s.expect);
      if (again.why.empty()) f = again;
    }
    w.stop();
    c.note("stopped workload");
    auto v1 = c.active_view();
    std::string active1 = v1.is_object() ? v1.value("activeSite", "") : "";
    int64_t epoch1 = v1.is_object() ? v1.value("epoch", int64_t{0}) : -1;
    if (f.present.empty() && f.primary >= 0) {
      // not converged: S3 is still judged against the one writable site
      auto ids = c.sql(f.primary).query("SELECT id FROM appdb.chaos_writes");
      if (ids)
        for (const auto& r : *ids)
          if (r[0]) f.present.insert(std::stoll(*r[0]));
    }
    bool have_primary = !f.present.empty();
    // Sanitizer reports: during the scenario they fail it; at shutdown they are reported (a
    // product bug, fatal with BR_CHAOS_STRICT_SHUTDOWN=1).
    for (const auto& x : c.sanitizer_findings()) res.failures.push_back("sanitizer: " + x);
    final_report report;
    auto all_status = c.status();  // keyed "<namespace>/<group>"
    if (all_status.is_object() && all_status.contains("chaos/g")) report.status = all_status["chaos/g"];
    report.events = c.events();
    if (s.params.tls) {  // while everything still runs: every session and channel over verified TLS
      std::string summary;
      for (const auto& x : c.tls_findings(summary)) res.failures.push_back("TLS: " + x);
      ctx.notes.push_back("TLS: " + summary);
    }
    size_t before = c.sanitizer_findings().size();
    auto exits = c.stop_processes();
    auto after = c.sanitizer_findings();
    bool strict = std::getenv("BR_CHAOS_STRICT_SHUTDOWN") && std::string(std::getenv("BR_CHAOS_STRICT_SHUTDOWN")) == "1";
    std::vector<std::string> shutdown_issues;
    for (size_t i = before; i < after.size(); ++i) shutdown_issues.push_back("sanitizer at shutdown: " + after[i]);
    if (!exits.empty()) shutdown_issues.push_back("shutdown: " + exits);
    for (const auto& x : shutdown_issues) {
      if (strict) res.failures.push_back(x);
      else ctx.notes.push_back("PRODUCT BUG " + x);
    }

    auto acks = w.acks();
    auto rounds = w.rounds();
    auto s1 = check_s1_samples(rounds, w.sample_period_ms());
    auto s1a = check_s1_acks(acks, 1000);
    std::set<std::string> blocked(f.blocked.begin(), f.blocked.end());
    if (s.params.gr && s.expect.forced_quorum)
      blocked.insert(s.expect.forced_left_out.begin(), s.expect.forced_left_out.end());
    auto s3 = check_s3(acks, f.present, s.expect.strict_s3 ? std::set<std::string>{} : blocked);
    int64_t unavailable = write_unavailability_ms(acks, fault_ms, converged_ms);

    if (!have_primary) res.failures.push_back("S3 not judged: no single writable site at the end");
    if (!converged) res.failures.push_back("not converged in " + std::to_string(s.expect.converge_seconds) + "s: " + f.why);
    if (s.params.gr) {
      // GR: S1 is two members acknowledging direct writes within one sample window. The
      // samples (read_only off on two members) are reported only: a member cut off from its
      // majority keeps read_only off while its commits block.
      auto two = check_gr_two_primaries(acks, w.sample_period_ms());
      if (!two.ok())
        res.failures.push_back("S1 (GR): " + std::to_string(two.overlaps) +
                               " direct acks of two members within " +
                               std::to_string(w.sample_period_ms()) + " ms, first " + two.detail);
      if (!s1.ok())
        ctx.notes.push_back("read_only off on two members in " + std::to_string(s1.violating_rounds) +
                            " samples (window " + fmt_s(s1.window_ms) + "s, first " + s1.detail +
                            "): not acknowledged writes, reported only in GR mode");
      if (s.expect.forced_quorum)
        ctx.notes.push_back("quorum was forced (guarded recovery): " + std::to_string(s3.reported_lost) +
                            " acked writes of the members left out are missing (reported)");
    } else if (s.params.semisync_k > 0) {
      // Semi-sync (docs/safety.md "What S1 means here"): the old primary may keep read_only off
      // while its commits wait for acknowledgements no receiver can give; S1 is judged on what
      // was acknowledged: no two sites acknowledging direct writes within one sample window
      // (and the steered/direct overlap check below). Writable samples are reported.
      auto two = check_gr_two_primaries(acks, w.sample_period_ms());
      if (!two.ok())
        res.failures.push_back("S1 (semi-sync): " + std::to_string(two.overlaps) +
                               " direct acks of two sites within " +
                               std::to_string(w.sample_period_ms()) + " ms, first " + two.detail);
      if (!s1.ok())
        ctx.notes.push_back("read_only off on two sites in " + std::to_string(s1.violating_rounds) +
                            " samples (window " + fmt_s(s1.window_ms) + "s, first " + s1.detail +
                            "): no acknowledged write there, reported only under semi-sync");
    } else if (!s1.ok()) {
      std::string m = "S1 samples: " + std::to_string(s1.violating_rounds) + " rounds, window " +
                      fmt_s(s1.window_ms) + "s, first " + s1.detail;
      if (s.expect.s1_exempt) ctx.notes.push_back(m + " [exempt: " + s.expect.s1_exempt_why + "]");
      else res.failures.push_back(m);
    }
    if (!s1a.ok()) {
      std::string m = "S1 acks: " + std::to_string(s1a.overlaps) + " overlaps, first " + s1a.detail;
      if (s.expect.s1_exempt) ctx.notes.push_back(m + " [exempt: " + s.expect.s1_exempt_why + "]");
      else res.failures.push_back(m);
    }
    if (have_primary && !s3.ok()) {
      std::string ids;
      for (auto id : s3.lost_ids) ids += " " + std::to_string(id);
      res.failures.push_back("S3: " + std::to_string(s3.lost) + " acked writes missing on the primary, not reported (ids" + ids + ")");
    }
    if (s.verify) {
      report.acked = static_cast<int64_t>(s3.acked);
      report.lost_unreported = static_cast<int64_t>(s3.lost);
      report.lost_reported = static_cast<int64_t>(s3.reported_lost);
      s.verify(ctx, report);
    }
    bool changed = active1 != active0;
    if (s.expect.failover && !changed) res.failures.push_back("expected a failover; active stayed " + active0);
    for (const auto& x : ctx.failures) res.failures.push_back(x);
    if (!s.expect.failover && (changed || (epoch1 != epoch0 && !s.expect.epoch_may_change)))
      res.failures.push_back("expected no failover; active " + active0 + "->" + active1 + " epoch " +
                             std::to_string(epoch0) + "->" + std::to_string(epoch1));
    if (!s.expect.final_active.empty() && active1 != s.expect.final_active)
      res.failures.push_back("expected final active " + s.expect.final_active + ", got " + active1);
    if (acks.empty()) res.failures.push_back("no acknowledged write at all");

    res.notes = ctx.notes;
    res.pass = res.failures.empty();
    line << " verdict=" << (res.pass ? "PASS" : "FAIL") << " unavailable_s=" << fmt_s(unavailable)
         << " acked=" << s3.acked << " lost=" << (have_primary ? std::to_string(s3.lost) : "n/a")
         << " lost_reported=" << s3.reported_lost
         << " s1_rounds=" << s1.violating_rounds << " s1_window_s=" << fmt_s(s1.window_ms)
         << " active=" << active0 << "->" << active1 << " epoch=" << epoch0 << "->" << epoch1
         << " blocked=" << blocked.size() << " samples=" << rounds.size()
         << " duration_s=" << fmt_s(now_ms() - t_start);
  } catch (const std::exception& e) {
    res.pass = false;
    res.failures.push_back(std::string("setup/run error: ") + e.what());
    line << " verdict=FAIL duration_s=" << fmt_s(now_ms() - t_start);
  }
  for (const auto& f : res.failures) line << "\n  fail: " << f;
  for (const auto& n : res.notes) line << "\n  note: " << n;
  line << "\n  logs: " << dir;
  res.line = line.str();
  std::cout << res.line << std::endl;
  if (const char* out = std::getenv("BR_CHAOS_RESULTS"); out && *out)
    std::ofstream(out, std::ios::app) << res.line << "\n";
  return res;
}

}  // namespace br::chaos
