// The ordered update of a Group Replication group under write load (issue 23, acceptance 4), in
// Kubernetes mode on the API simulator with a SIMULATED kubelet whose pod replacement restarts the
// member's real MySQL 9.7 server (sandbox instances 244-246 only: stop = SIGTERM after
// offline_mode, so the member leaves the group as a pod's mysqld does; then start). The "upgrade"
// is a spec.mysqlConf change, which changes every member's Deployment; the sandbox servers do not
// read the rendered my.cnf, so each member restarts on the same binary and settings (only MySQL
// 9.7 is here). While the operator's reconciler rolls the members (decide/gr_rollout):
//  - a writer inserts one row at a time into whichever member accepts it (the primary), and records
//    every acknowledged id;
//  - a sampler reads every reachable member's replication_group_members every 100 ms and takes the
//    ONLINE count of the view its ONLINE members report; it must never fall below 2 (the majority
//    of 3).
// Then: each member was restarted once, the secondaries first, the primary last after the group
// handed its role to another member (SwitchoverCompleted); every acknowledged row is on every
// member. The longest gap between two acknowledged writes in each step is printed (a measurement,
// not asserted).
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "io/kube/retry.hpp"
#include "tests/integration/kube_gr_fixture.hpp"
#include "tests/support/eventually.hpp"

using namespace br;
using namespace std::chrono_literals;
using nlohmann::json;
using clock_type = std::chrono::steady_clock;

namespace {

double ms_between(clock_type::time_point a, clock_type::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

mysql::connect_options quick(int instance) {
  auto o = test::gr_sandbox().options(instance, "root");
  o.connect_timeout = 1s;
  o.read_timeout = 2s;
  o.write_timeout = 2s;
  return o;
}

/// One row per attempt into the member that takes it; records each acknowledged id and when.
class writer {
 public:
  explicit writer(std::vector<int> members) : members_(std::move(members)) {}
  ~writer() { stop(); }

  void start() {
    thread_ = std::thread([this] { run(); });
  }
  void stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  struct ack {
    int id = 0;
    clock_type::time_point at;
    int member = 0;  ///< the instance that took it
  };
  std::vector<ack> acked() const {
    std::lock_guard<std::mutex> lk(mx_);
    return acked_;
  }
  /// When the writer moved to another member (the instance it moved to).
  std::vector<std::pair<int, clock_type::time_point>> moves() const {
    std::lock_guard<std::mutex> lk(mx_);
    return moves_;
  }

 private:
  void run() {
    std::optional<mysql::connection> conn;
    std::size_t at = 0;
    int id = 0;
    while (!stop_) {
      if (!conn) {
        auto c = mysql::connection::open(quick(members_[at]));
        if (c.ok()) conn.emplace(std::move(*c));
      }
      bool ok = false;
      ++id;
      if (conn) {
        const auto n = std::to_string(id);
        ok = conn->exec("INSERT INTO q.t (id, v) VALUES (" + n + ", 1)").ok();
      }
      if (ok) {
        std::lock_guard<std::mutex> lk(mx_);
        acked_.push_back({id, clock_type::now(), members_[at]});
      } else {
        conn.reset();  // refused (a SECONDARY is super_read_only) or gone: try the next member
        at = (at + 1) % members_.size();
        std::lock_guard<std::mutex> lk(mx_);
        moves_.emplace_back(members_[at], clock_type::now());
      }
      std::this_thread::sleep_for(20ms);
    }
  }

  std::vector<int> members_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  mutable std::mutex mx_;
  std::vector<ack> acked_;
  std::vector<std::pair<int, clock_type::time_point>> moves_;
};

/// Every reachable member's own member table, every 100 ms, one thread per member (a member that
/// is shutting down cannot hold up the others' samples): the ONLINE count of the view a member
/// that is itself ONLINE reports.
class quorum_sampler {
 public:
  explicit quorum_sampler(std::vector<int> members) : members_(std::move(members)) {}
  ~quorum_sampler() { stop(); }

  struct sample {
    clock_type::time_point at;
    int member = 0;
    int online = 0;  ///< ONLINE rows of its table
  };

  void start() {
    for (int i : members_) threads_.emplace_back([this, i] { run(i); });
  }
  void stop() {
    stop_ = true;
    for (auto& t : threads_)
      if (t.joinable()) t.join();
  }
  /// Samples of members that were themselves ONLINE, in time order.
  std::vector<sample> samples() const {
    std::lock_guard<std::mutex> lk(mx_);
    auto out = samples_;
    std::sort(out.begin(), out.end(), [](const sample& a, const sample& b) { return a.at < b.at; });
    return out;
  }

 private:
  void run(int member) {
    std::optional<mysql::connection> conn;
    auto next = clock_type::now();
    while (!stop_) {
      if (!conn) {
        auto c = mysql::connection::open(quick(member));
        if (c.ok()) conn.emplace(std::move(*c));
      }
      if (conn) {
        auto r = conn->query(
            "SELECT MEMBER_STATE, MEMBER_ID = @@server_uuid FROM "
            "performance_schema.replication_group_members");
        if (!r.ok()) {
          conn.reset();
        } else {
          sample s{clock_type::now(), member, 0};
          bool self_online = false;
          for (const auto& row : r->rows) {
            const bool on = row[0].value_or("") == "ONLINE";
            s.online += on;
            if (row[1].value_or("0") == "1") self_online = on;
          }
          if (self_online) {
            std::lock_guard<std::mutex> lk(mx_);
            samples_.push_back(s);
          }
        }
      }
      next += 100ms;
      auto now = clock_type::now();
      if (next > now)
        std::this_thread::sleep_until(next);
      else
        next = now;  // a slow round: the next one starts at once
    }
  }

  std::vector<int> members_;
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
  mutable std::mutex mx_;
  std::vector<sample> samples_;
};

struct restart_record {
  std::string site;
  clock_type::time_point begin, end;
};

struct rollout_fixture : test::kube_gr_fixture {
  rollout_fixture() : kube_gr_fixture({244, 245, 246}, "grr") {}

  std::mutex mx;
  std::vector<restart_record> restarts;

  /// The kubelet's pod replacement restarts the member's server (its first creation does not).
  void restart_members_with_their_pods() {
    kubelet->on_restart([this](const json& workload, int64_t generation) {
      const auto name = workload["metadata"].value("name", "");
      const std::string prefix = "mysql-" + group + "-";
      if (generation <= 1 || name.rfind(prefix, 0) != 0) return;
      const std::string site = name.substr(prefix.size());
      const int i = instance_of(site);
      if (i == 0) return;
      restart_record r{site, clock_type::now(), {}};
      test::gr_sandbox().stop(i);
      test::gr_sandbox().start(i);
      r.end = clock_type::now();
      std::lock_guard<std::mutex> lk(mx);
      restarts.push_back(r);
    });
  }

  std::vector<restart_record> restarted() {
    std::lock_guard<std::mutex> lk(mx);
    return restarts;
  }

  std::set<int> ids_on(const std::string& site) {
    std::set<int> out;
    auto conn = mysql::connection::open(test::gr_sandbox().options(instance_of(site), "root"));
    if (!conn.ok()) return out;
    auto r = conn->query("SELECT id FROM q.t");
    if (!r.ok()) return out;
    for (const auto& row : r->rows) out.insert(std::stoi(row[0].value_or("0")));
    return out;
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(kube_gr_rollout, rollout_fixture)

BOOST_AUTO_TEST_CASE(rolling_restart_under_load_keeps_quorum_and_every_acked_write) {
  members_up();
  restart_members_with_their_pods();
  start_group();
  const std::set<std::string> all(sites.begin(), sites.end());
  BOOST_TEST_REQUIRE(test::eventually([&] {
    return online(all) && !gr().value("primaryMember", "").empty() &&
           status().value("activeSite", "") == gr().value("primaryMember", "") &&
           status().value("updatePhase", "x").empty();
  }, 180s, 250ms), "no 3-member group: " << status().dump());
  const std::string primary = gr().value("primaryMember", "");
  test::gr_sandbox().must({"sql", std::to_string(instance_of(primary)),
                           "CREATE DATABASE q; CREATE TABLE q.t (id INT PRIMARY KEY, v INT)"});

  writer w(instances);
  quorum_sampler q(instances);
  q.start();
  w.start();
  std::this_thread::sleep_for(3s);
  BOOST_TEST_REQUIRE(!w.acked().empty(), "the writer got nothing through before the rollout");

  // The "upgrade": a my.cnf change rolls every member's Deployment.
  const auto t0 = clock_type::now();
  auto edited = kube::update_with_retry(*c, mfg_resource, ns, group, [](json& obj) {
    obj["spec"]["mysqlConf"] = {{"max_connections", "300"}};
    return true;
  });
  BOOST_TEST_REQUIRE(edited.ok(), (edited.ok() ? "" : edited.error().describe()));
  BOOST_TEST_REQUIRE(test::eventually([&] { return restarted().size() == 3; }, 600s, 500ms),
                     "not every member restarted: " << restarted().size() << "; status "
                                                    << status().dump());
  BOOST_TEST_REQUIRE(test::eventually([&] {
    return online(all) && status().value("updatePhase", "x").empty();
  }, 300s, 250ms), "the rollout did not finish: " << status().dump());
  const double total_s = ms_between(t0, clock_type::now()) / 1000;
  std::this_thread::sleep_for(2s);
  w.stop();
  q.stop();

  // Order: the two secondaries (declared order), then the old primary, after a switchover.
  auto rs = restarted();
  std::vector<std::string> secondaries;
  for (const auto& s : sites)
    if (s != primary) secondaries.push_back(s);
  BOOST_TEST(rs[0].site == secondaries[0]);
  BOOST_TEST(rs[1].site == secondaries[1]);
  BOOST_TEST(rs[2].site == primary);
  for (std::size_t i = 1; i < rs.size(); ++i)
    BOOST_TEST(bool(rs[i].begin >= rs[i - 1].end), "restart " << i << " began before the previous ended");
  BOOST_TEST(events("SwitchoverCompleted") == 1u);
  BOOST_TEST(gr().value("primaryMember", "") != primary);

  // Quorum: every ONLINE member's table, every 100 ms, showed at least 2 ONLINE; the longest
  // stretch without any ONLINE member's sample is reported.
  auto samples = q.samples();
  std::size_t below = 0;
  double longest_gap = 0;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const auto& s = samples[i];
    if (s.online < 2 && below++ < 5)
      BOOST_TEST_MESSAGE("below the majority at " << ms_between(t0, s.at) << " ms: instance "
                                                  << s.member << " saw " << s.online << " ONLINE");
    if (i > 0) longest_gap = std::max(longest_gap, ms_between(samples[i - 1].at, s.at));
  }
  BOOST_TEST_MESSAGE("quorum samples from ONLINE members: " << samples.size() << ", below the majority "
                                        << below << ", longest stretch without one " << longest_gap
                                        << " ms");
  BOOST_TEST(samples.size() > 300u);
  BOOST_TEST(below == 0u, below << " samples saw fewer than 2 ONLINE members");

  // Every acknowledged write is on every member.
  const auto acked = w.acked();
  BOOST_TEST_MESSAGE("acknowledged writes: " << acked.size() << ", writer moves: " << w.moves().size());
  for (const auto& s : sites)
    BOOST_TEST(test::eventually([&] {
      auto have = ids_on(s);
      return std::all_of(acked.begin(), acked.end(),
                         [&](const auto& a) { return have.count(a.id) > 0; });
    }, 60s, 500ms), s << " lacks acknowledged writes");

  // Measured: the longest gap between two acknowledged writes within each step (a step runs from
  // its restart's begin to the next one's; the switchover falls in the second).
  std::ostringstream steps;
  for (std::size_t i = 0; i < rs.size(); ++i) {
    const auto from = rs[i].begin;
    const auto to = i + 1 < rs.size() ? rs[i + 1].begin : clock_type::now();
    double gap = 0, gap_at = 0;
    for (std::size_t k = 1; k < acked.size(); ++k)
      if (acked[k].at > from && acked[k - 1].at < to &&
          ms_between(acked[k - 1].at, acked[k].at) > gap) {
        gap = ms_between(acked[k - 1].at, acked[k].at);
        gap_at = ms_between(from, acked[k - 1].at);
      }
    steps << " " << rs[i].site << (rs[i].site == primary ? " (old primary)" : "") << ": restart "
          << ms_between(rs[i].begin, rs[i].end) << " ms, longest write gap " << gap
          << " ms starting " << gap_at << " ms after the restart began;";
  }
  // The switchover: the last write on the old primary to the first on the new one.
  for (std::size_t k = 1; k < acked.size(); ++k)
    if (acked[k].at > t0 && acked[k].member != acked[k - 1].member)
      steps << " primary moved from instance " << acked[k - 1].member << " to " << acked[k].member
            << ": write gap " << ms_between(acked[k - 1].at, acked[k].at) << " ms;";
  BOOST_TEST_MESSAGE("rollout " << total_s << " s;" << steps.str());
}

BOOST_AUTO_TEST_SUITE_END()
