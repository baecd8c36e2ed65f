// The scale-down of a Group Replication group (issue 23), in Kubernetes mode on the API simulator
// with a SIMULATED kubelet and four real MySQL 9.7 members (sandbox instances 275-278 only). Under a
// writer that inserts one row at a time into whichever member takes it (the primary) and records
// every acknowledged id:
//  1. 4 declared members: the GroupSizeEven Warning; all ONLINE.
//  2. The PRIMARY's site is removed from the spec: the group hands the primary to a staying member
//     first (SwitchoverCompleted), then the operator records the leave, sends STOP
//     GROUP_REPLICATION, and only once the member is OFFLINE and out of every other member's table
//     are its Deployment and Service deleted (sampled every 100 ms: never gone while the group
//     still lists it); its PVC is kept; 3 ONLINE.
//  3. With one SECONDARY down (its server stopped), removing the other SECONDARY would leave 1 of
//     2 ONLINE: the leave waits (the ScaleDown condition says why; the member stays ONLINE, its
//     Deployment stays); the stopped server is started again, the operator STARTs it, and the
//     leave goes on: 2 ONLINE. (The CRD needs at least 2 sites, so the group ends there.)
// Every acknowledged row is on the last member.
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "tests/integration/kube_gr_fixture.hpp"
#include "tests/support/eventually.hpp"

using namespace br;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

mysql::connect_options quick(int instance) {
  auto o = test::gr_sandbox().options(instance, "root");
  o.connect_timeout = 1s;
  o.read_timeout = 2s;
  o.write_timeout = 2s;
  return o;
}

/// One row per attempt into the member that takes it (only the primary does); the acknowledged ids.
class writer {
 public:
  explicit writer(std::vector<int> members) : members_(std::move(members)) {}
  ~writer() { stop(); }
  void start() { thread_ = std::thread([this] { run(); }); }
  void stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  std::vector<int> acked() const {
    std::lock_guard<std::mutex> lk(mx_);
    return acked_;
  }

 private:
  void run() {
    std::optional<mysql::connection> conn;
    std::size_t at = 0;
    int id = 0;
    while (!stop_) {
      if (!conn) {
        auto c = mysql::connection::open(quick(members_[at]));
        if (!c.ok()) {
          at = (at + 1) % members_.size();
          std::this_thread::sleep_for(50ms);
          continue;
        }
        conn.emplace(std::move(*c));
      }
      ++id;
      const auto n = std::to_string(id);
      if (conn->exec("INSERT INTO q.t (id, v) VALUES (" + n + ", " + n + ")").ok()) {
        std::lock_guard<std::mutex> lk(mx_);
        acked_.push_back(id);
        std::this_thread::sleep_for(20ms);
      } else {
        conn.reset();  // not the primary (any more): try the next member
        at = (at + 1) % members_.size();
        std::this_thread::sleep_for(20ms);
      }
    }
  }
  std::vector<int> members_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  mutable std::mutex mx_;
  std::vector<int> acked_;
};

struct scale_down_fixture : test::kube_gr_fixture {
  scale_down_fixture() : kube_gr_fixture({275, 276, 277, 278}, "kgs", {"a", "b", "c", "d"}) {}

  /// The spec without `site` (retried on a conflict with the operator's status writes).
  void remove_site(const std::string& site) {
    for (int attempt = 0; attempt < 20; ++attempt) {
      auto obj = object();
      json kept = json::array();
      for (const auto& s : obj["spec"]["sites"])
        if (s.value("name", "") != site) kept.push_back(s);
      obj["spec"]["sites"] = kept;
      obj.erase("status");
      auto r = c->update(mfg_resource, obj);
      if (r) return;
      BOOST_TEST_REQUIRE(r.error().conflict(), r.error().describe());
      std::this_thread::sleep_for(100ms);
    }
    BOOST_FAIL("spec not updated");
  }

  bool exists(const kube::resource_ref& res, const std::string& name) {
    return c->get(res, ns, name).ok();
  }
  std::string deployment(const std::string& site) { return "mysql-" + group + "-" + site; }

  /// The leaving entry of `site` in status.groupReplication.leaving (null when none).
  json leaving(const std::string& site) {
    for (const auto& l : gr().value("leaving", json::array()))
      if (l.value("site", "") == site) return l;
    return nullptr;
  }

  std::string condition_message(const std::string& type) {
    for (const auto& cond : status().value("conditions", json::array()))
      if (cond.value("type", "") == type) return cond.value("message", "");
    return "";
  }

  std::string server_uuid(const std::string& site) {
    return test::gr_sandbox().sql(instance_of(site), "SELECT @@server_uuid");
  }
  std::string own_state(const std::string& site) {
    return test::gr_sandbox().sql(instance_of(site),
                                  "SELECT MEMBER_STATE FROM performance_schema.replication_group_members "
                                  "WHERE MEMBER_ID=@@server_uuid");
  }
  /// Whether `member`'s own replication_group_members lists `uuid` ("" when it cannot be read).
  std::string lists(const std::string& member, const std::string& uuid) {
    auto conn = mysql::connection::open(quick(instance_of(member)));
    if (!conn.ok()) return "";
    auto r = conn->query("SELECT COUNT(*) FROM performance_schema.replication_group_members WHERE MEMBER_ID='" +
                         uuid + "'");
    if (!r.ok() || r->rows.empty() || !r->rows[0][0]) return "";
    return *r->rows[0][0] == "0" ? "no" : "yes";
  }

  /// Waits until `site` is out of the group and its workload is gone, sampling every 100 ms that
  /// its Deployment is never gone while a staying member (`staying`) still lists it.
  void expect_removed(const std::string& site, const std::set<std::string>& staying) {
    const auto uuid = server_uuid(site);
    int violations = 0, samples = 0;
    bool gone = false;
    auto deadline = std::chrono::steady_clock::now() + 120s;
    while (!gone && std::chrono::steady_clock::now() < deadline) {
      gone = !exists(kube::resources::deployments, deployment(site));
      if (gone)
        for (const auto& s : staying)
          if (lists(s, uuid) == "yes") {
            ++violations;
            BOOST_TEST_MESSAGE(site << "'s Deployment is gone while " << s << " still lists it");
          }
      ++samples;
      if (!gone) std::this_thread::sleep_for(100ms);
    }
    BOOST_TEST_REQUIRE(gone, site << "'s Deployment was not deleted: " << status().dump());
    BOOST_TEST(violations == 0);
    BOOST_TEST_MESSAGE(site << " removed after " << samples << " samples");
    BOOST_TEST(own_state(site) == "OFFLINE");
    for (const auto& s : staying) BOOST_TEST(lists(s, uuid) == "no", s << " lists " << site);
    BOOST_TEST(!exists(kube::resources::services, deployment(site)));
    BOOST_TEST(exists(kube::resources::pvcs, "mysql-" + group + "-" + site + "-data"));  // kept
    BOOST_TEST(leaving(site).value("phase", "") == "Stopped", status().dump());
    BOOST_TEST_REQUIRE(test::eventually([&] { return online(staying); }, 60s, 250ms),
                       "ONLINE is not " << staying.size() << ": " << status().dump());
  }

};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(kube_gr_scale_down, scale_down_fixture)

BOOST_AUTO_TEST_CASE(scale_down_stops_the_member_before_its_workload_goes_never_below_quorum) {
  members_up();
  start_group();
  // -- 1. four members: an even count is warned about --------------------------------------
  BOOST_TEST_REQUIRE(test::eventually([&] { return online({"a", "b", "c", "d"}) && !gr().value("primaryMember", "").empty(); },
                                      180s, 250ms),
                     "no 4-member group: " << status().dump());
  BOOST_TEST(test::eventually([&] { return events("GroupSizeEven") > 0; }, 20s, 250ms));
  const std::string primary = gr().value("primaryMember", "");
  std::vector<std::string> secondaries;
  for (const auto& s : sites)
    if (s != primary) secondaries.push_back(s);
  BOOST_TEST_MESSAGE("primary " << primary);
  test::gr_sandbox().must({"sql", std::to_string(instance_of(primary)),
                           "CREATE DATABASE IF NOT EXISTS q; CREATE TABLE IF NOT EXISTS q.t (id INT "
                           "PRIMARY KEY, v INT)"});
  writer w(instances);
  w.start();

  // -- 2. the PRIMARY's site removed: the group hands the primary over first, then it leaves ---
  const auto switched = events("SwitchoverCompleted");
  remove_site(primary);
  BOOST_TEST_REQUIRE(test::eventually([&] {
    auto p = gr().value("primaryMember", "");
    return !p.empty() && p != primary;
  }, 90s, 250ms), "the primary did not move: " << status().dump());
  std::set<std::string> staying(secondaries.begin(), secondaries.end());
  expect_removed(primary, staying);
  BOOST_TEST(events("SwitchoverCompleted") > switched);
  BOOST_TEST(events("MemberLeaving") >= 1);
  BOOST_TEST(events("MemberRemoved") >= 1);
  BOOST_TEST(gr().value("observedViewMax", 0) == 3);
  const std::string next = gr().value("primaryMember", "");
  BOOST_TEST_MESSAGE("primary now " << next);

  // -- 3. 3 members, one SECONDARY down: removing the other would leave 1 of 2 ONLINE: it waits;
  //       the member back (the operator STARTs it), the leave goes on: 2 ONLINE ---------------
  std::vector<std::string> rest;
  for (const auto& s : secondaries)
    if (s != next) rest.push_back(s);
  const std::string down = rest[0], second = rest[1];
  test::gr_sandbox().stop(instance_of(down));
  BOOST_TEST_REQUIRE(test::eventually([&] { return online({next, second}); }, 60s, 250ms),
                     status().dump());
  remove_site(second);
  BOOST_TEST_REQUIRE(test::eventually([&] {
    return condition("ScaleDown") == "True/ScaleDownWaiting" &&
           condition_message("ScaleDown").find("would leave 1 ONLINE") != std::string::npos;
  }, 60s, 250ms), "no waiting condition: " << status().dump());
  BOOST_TEST_MESSAGE("waiting: " << condition_message("ScaleDown"));
  std::this_thread::sleep_for(8s);  // and it keeps waiting
  BOOST_TEST(own_state(second) == "ONLINE");
  BOOST_TEST(exists(kube::resources::deployments, deployment(second)));
  BOOST_TEST(condition("ScaleDown") == "True/ScaleDownWaiting");
  test::gr_sandbox().start(instance_of(down));  // comes back OFFLINE; the operator STARTs it
  expect_removed(second, {next, down});
  BOOST_TEST(gr().value("primaryMember", "") == next);
  BOOST_TEST(gr().value("observedViewMax", 0) == 2);
  BOOST_TEST(condition("ScaleDown") == "False/MembersRemoved");
  const auto before = w.acked().size();
  BOOST_TEST(test::eventually([&] { return w.acked().size() > before + 10; }, 30s, 250ms),
             "writes do not continue on " << next);
  w.stop();

  // Every acknowledged row is on the last member.
  auto acked = w.acked();
  auto conn = mysql::connection::open(quick(instance_of(next)));
  BOOST_TEST_REQUIRE(conn.ok());
  auto r = conn->query("SELECT id FROM q.t");
  BOOST_TEST_REQUIRE(r.ok());
  std::set<int> have;
  for (const auto& row : r->rows)
    if (row[0]) have.insert(std::stoi(*row[0]));
  std::size_t missing = 0;
  for (int id : acked) missing += have.count(id) ? 0 : 1;
  BOOST_TEST(missing == 0u, missing << " of " << acked.size() << " acknowledged rows missing");
  BOOST_TEST_MESSAGE(acked.size() << " writes acknowledged, " << missing << " missing");
}

BOOST_AUTO_TEST_SUITE_END()
