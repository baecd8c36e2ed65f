// Table tests of the chaos invariant checker's pure part (S1 samples/acks, S3, write gap).
#include <boost/test/unit_test.hpp>

#include "tests/chaos/invariants.hpp"

using namespace br::chaos;

namespace {

sample_round round_at(int64_t t, bool w1, bool w2, bool reach2 = true) {
  sample_round r;
  r.t_ms = t;
  r.sites.push_back(site_sample{"s1", true, !w1, !w1});
  r.sites.push_back(site_sample{"s2", reach2, !w2, !w2});
  return r;
}

ack a(int64_t id, const std::string& site, int64_t t, bool direct = false) {
  return ack{id, site, t - 5, t, direct};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(chaos_invariants)

BOOST_AUTO_TEST_CASE(s1_samples_counts_rounds_and_windows) {
  // rounds at 0..900 ms; s1 and s2 both writable at 300, 400 (one run) and 800 (another)
  std::vector<sample_round> rs;
  for (int64_t t = 0; t < 1000; t += 100) {
    bool both = t == 300 || t == 400 || t == 800;
    rs.push_back(round_at(t, true, both));
  }
  auto r = check_s1_samples(rs, 100);
  BOOST_TEST(r.violating_rounds == 3);
  // run 300..400 spans 100 ms + one cadence, run 800 one cadence
  BOOST_TEST(r.window_ms == (400 - 300 + 100) + 100);
  BOOST_TEST(r.first_ms == 300);
  BOOST_TEST(r.detail.find("s1+s2") == 0, r.detail);
}

BOOST_AUTO_TEST_CASE(s1_samples_ignores_unreachable_and_read_only) {
  std::vector<sample_round> rs{round_at(0, true, true, false), round_at(100, true, false),
                               round_at(200, false, true)};
  BOOST_TEST(check_s1_samples(rs, 100).ok());
}

BOOST_AUTO_TEST_CASE(s1_acks_overlap_only_inside_a_close_pair) {
  // s1 acks at 100, 150 (close), then 5000; s2 acks at 120 (inside 100..150) and 3000
  // (inside 150..5000, but that pair is further apart than max_gap: not an accepting interval).
  std::vector<ack> acks{a(1, "s1", 100), a(2, "s2", 120), a(3, "s1", 150), a(4, "s2", 3000),
                        a(5, "s1", 5000)};
  auto r = check_s1_acks(acks, 1000);
  BOOST_TEST(r.overlaps == 1);
  BOOST_TEST(r.detail.find("s2 acked id 2") == 0, r.detail);
  // A clean handover: s1 until 150, s2 from 400 on.
  std::vector<ack> clean{a(1, "s1", 100), a(2, "s1", 150), a(3, "s2", 400), a(4, "s2", 450)};
  BOOST_TEST(check_s1_acks(clean, 1000).ok());
}

BOOST_AUTO_TEST_CASE(s3_splits_lost_from_reported) {
  std::vector<ack> acks{a(1, "s1", 10), a(2, "s1", 20), a(3, "s2", 30), a(4, "s3", 40)};
  std::set<int64_t> present{1, 3};
  auto r = check_s3(acks, present, {"s1"});
  BOOST_TEST(r.acked == 4);
  BOOST_TEST(r.reported_lost == 1);  // id 2, acked by the reported s1
  BOOST_TEST(r.lost == 1);           // id 4
  BOOST_TEST_REQUIRE(r.lost_ids.size() == 1u);
  BOOST_TEST(r.lost_ids[0] == 4);
  BOOST_TEST(!r.ok());
  BOOST_TEST(check_s3(acks, {1, 2, 3, 4}, {}).ok());
}

BOOST_AUTO_TEST_CASE(write_gap_from_the_fault_on) {
  // workload acks every 50 ms until 1000, then from 3500; a direct ack at 2000 does not count
  std::vector<ack> acks;
  int64_t id = 0;
  for (int64_t t = 0; t <= 1000; t += 50) acks.push_back(a(++id, "s1", t));
  acks.push_back(a(++id, "s1", 2000, true));
  for (int64_t t = 3500; t <= 4000; t += 50) acks.push_back(a(++id, "s2", t));
  BOOST_TEST(write_unavailability_ms(acks, 900, 4000) == 3500 - 1000);
  // a trailing outage: nothing after 1000, scenario ends at 6000
  std::vector<ack> early(acks.begin(), acks.begin() + 21);
  BOOST_TEST(write_unavailability_ms(early, 900, 6000) == 6000 - 1000);
}

BOOST_AUTO_TEST_CASE(gr_two_primaries_from_direct_acks) {
  struct row {
    const char* name;
    std::vector<ack> acks;
    int overlaps;
  };
  const std::vector<row> rows = {
      {"one primary, then another 7 s later", {a(1, "s1", 1000, true), a(2, "s1", 1050, true), a(3, "s2", 8000, true)}, 0},
      {"two members within 100 ms", {a(1, "s1", 1000, true), a(2, "s2", 1060, true)}, 1},
      {"exactly one window apart", {a(1, "s1", 1000, true), a(2, "s2", 1100, true)}, 0},
      {"the steered writer moving is not a direct ack", {a(1, "s1", 1000, true), a(2, "s2", 1010)}, 0},
      {"both keep writing (a forced minority)",
       {a(1, "s1", 1000, true), a(2, "s2", 1020, true), a(3, "s1", 1070, true), a(4, "s2", 1090, true)}, 3},
  };
  for (const auto& r : rows) {
    auto x = check_gr_two_primaries(r.acks, 100);
    BOOST_TEST(x.overlaps == r.overlaps, r.name << ": " << x.detail);
    BOOST_TEST(x.detail.empty() == (r.overlaps == 0), r.name);
  }
}

BOOST_AUTO_TEST_SUITE_END()
