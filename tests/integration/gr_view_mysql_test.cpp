// decide/gr_view's cross_validate on real member tables (issue 22 groundwork): three fresh MySQL 9.7
// sandbox servers made one group (tools/mysql-sandbox gr-*), each member's own
// replication_group_members + VIEW_ID read as the operator will read it, the verdict taken before
// and through a kill -9 of the primary: agreed primary, the killed primary listed UNREACHABLE (no
// primary), the group's own election, quorum kept with 2 of 3, observedViewMax sticky. Simulated
// (named as such): a lying member (one real report altered) and an operator that reaches only one
// member (reports dropped). Instances BR_GR_INSTANCES (default 181 182 183). Label gr, DISABLED in
// plain ctest (about 1.5 min); run: BR_SOURCE_DIR=$PWD build/tests/integration_gr_view
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <cstdlib>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "actors/operator/decide/gr_view.hpp"
#include "tests/support/mysql_sandbox.hpp"

using namespace br;
using namespace std::chrono_literals;

namespace {

const test::mysql_sandbox& sandbox() {
  static const test::mysql_sandbox sb;
  return sb;
}

std::vector<int> instances() {
  std::vector<int> ids;
  const char* env = std::getenv("BR_GR_INSTANCES");
  std::istringstream in(env != nullptr ? env : "181 182 183");
  for (int i = 0; in >> i;) ids.push_back(i);
  return ids;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep)) out.push_back(cur);
  return out;
}

// What the operator will read from one member: its own id, the member table and its VIEW_ID.
gr::member_report read_report(int i) {
  gr::member_report r;
  const auto out = sandbox().run(
      {"sql", std::to_string(i),
       "SELECT @@server_uuid, m.MEMBER_ID, m.MEMBER_HOST, m.MEMBER_PORT, m.MEMBER_STATE, m.MEMBER_ROLE,"
       " IFNULL((SELECT VIEW_ID FROM performance_schema.replication_group_member_stats"
       "         WHERE MEMBER_ID=@@server_uuid), '')"
       " FROM performance_schema.replication_group_members m"});
  if (out.exit_code != 0) return r;  // unreachable
  r.reachable = true;
  for (const auto& line : split(out.out, '\n')) {
    auto f = split(line, '\t');
    if (f.size() < 6) continue;
    f.resize(7);
    r.reporter = f[0];
    r.view_id = f[6];
    r.rows.push_back({f[1], f[2], static_cast<uint16_t>(std::stoi(f[3].empty() ? "0" : f[3])),
                      gr::parse_member_state(f[4]), gr::parse_member_role(f[5])});
  }
  return r;
}

std::vector<gr::member_report> read_all(const std::vector<int>& ids) {
  std::vector<gr::member_report> out;
  for (int i : ids) out.push_back(read_report(i));
  return out;
}

std::string uuid(int i) { return sandbox().sql(i, "SELECT @@server_uuid"); }

struct group_fixture {
  std::vector<int> ids = instances();
  group_fixture() {
    BOOST_TEST_REQUIRE(ids.size() == 3u);
    const auto& sb = sandbox();
    for (int i : ids) sb.run({"gr-stop", std::to_string(i)});
    std::vector<std::string> cfg{"gr-config"};
    for (int i : ids) cfg.push_back(std::to_string(i));
    sb.must(cfg);
    for (int i : ids) sb.reset(i);
    sb.must({"gr-bootstrap", std::to_string(ids[0])});
    sb.must({"gr-join", std::to_string(ids[1])});
    sb.must({"gr-join", std::to_string(ids[2])});
  }
  ~group_fixture() {
    const auto& sb = sandbox();
    for (int i : ids) sb.run({"gr-stop", std::to_string(i)});
    for (int i : ids) sb.run({"stop", std::to_string(i)});
    for (int i : ids) sb.run({"gr-off", std::to_string(i)});
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(integration_gr_view)

BOOST_FIXTURE_TEST_CASE(verdict_through_a_kill_of_the_primary, group_fixture) {
  const int a = ids[0], b = ids[1], c = ids[2];
  const std::string ua = uuid(a), ub = uuid(b), uc = uuid(c);

  // 1. every member's real table: agreed, primary a, quorum, all reachable
  auto reports = read_all(ids);
  auto v = gr::cross_validate(reports, 3, 0);
  BOOST_TEST_REQUIRE(v.known, v.reason);
  BOOST_TEST(v.primary_member == ua);
  BOOST_TEST(v.has_quorum);
  BOOST_TEST(v.votes == 3u);
  BOOST_TEST(v.observed_view_max == 3u);
  BOOST_TEST_REQUIRE(v.members.size() == 3u);
  for (const auto& m : v.members) {
    BOOST_TEST((m.state == gr::member_state::online && m.reachable), m.member_id);
  }

  // 2. simulated liar: c's real report altered to name itself PRIMARY; outvoted
  auto lying = reports;
  for (auto& row : lying[2].rows) {
    row.role = row.member_id == uc ? gr::member_role::primary : gr::member_role::secondary;
  }
  v = gr::cross_validate(lying, 3, 3);
  BOOST_TEST_REQUIRE(v.known, v.reason);
  BOOST_TEST(v.primary_member == ua);
  BOOST_TEST((v.outvoted == std::vector<std::string>{uc}));

  // 3. simulated: the operator reaches only b: one vote cannot be cross-validated
  v = gr::cross_validate({reports[1]}, 3, 3);
  BOOST_TEST(!v.known, v.reason);

  // 4. kill -9 of the primary: no primary while it is listed UNREACHABLE, then the group's choice
  sandbox().kill9(a);
  const auto t0 = std::chrono::steady_clock::now();
  bool saw_no_primary = false;
  std::size_t max_seen = 3;
  std::string elected;
  while (std::chrono::steady_clock::now() - t0 < 120s) {
    v = gr::cross_validate(read_all(ids), 3, max_seen);
    if (v.known) {
      max_seen = v.observed_view_max;
      if (v.primary_member.empty()) saw_no_primary = true;
      if (!v.primary_member.empty() && v.primary_member != ua) {
        elected = v.primary_member;
        break;
      }
    }
    std::this_thread::sleep_for(200ms);
  }
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0);
  BOOST_TEST_MESSAGE("cross-validated new primary " << elected << " after " << ms.count() << " ms (" << v.reason
                                                   << ")");
  BOOST_TEST_REQUIRE(!elected.empty(), "no new primary within 120 s: " + v.reason);
  BOOST_TEST((elected == ub || elected == uc));
  BOOST_TEST(saw_no_primary, "the killed primary was never seen UNREACHABLE (expel faster than the polls?)");
  BOOST_TEST(v.has_quorum);
  BOOST_TEST(v.observed_view_max == 3u);  // the group shrank to 2; the denominator did not
  BOOST_TEST(v.votes == 2u);
  for (const auto& m : v.members) BOOST_TEST(m.member_id != ua);
}

BOOST_AUTO_TEST_SUITE_END()
