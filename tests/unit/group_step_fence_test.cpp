// step() rows for the manual fence (issue 20): the annotation and the one-site request are
// recorded durably before anything follows, refusals change nothing, and a fenced site is
// never a failover candidate.
#include <boost/test/unit_test.hpp>

#include "actors/operator/decide/manual_fence.hpp"
#include "tests/unit/group_step_fixture.hpp"

using namespace br;
using namespace std::chrono_literals;
using namespace group_step_test;

BOOST_FIXTURE_TEST_SUITE(group_step_fence, group_fixture)

BOOST_AUTO_TEST_CASE(the_annotation_fences_a_replica_once_recorded) {
  settled("a", 1, gtid(U1, 1, 5), gtid(U1, 1, 5));
  run(input::annotate{fenced_sites_annotation, "b"});
  BOOST_TEST(answer.value_or("").rfind("accepted", 0) == 0u, answer.value_or(""));
  auto next = persisted_next();
  BOOST_TEST((next.manually_fenced == std::set<std::string>{"b"}));
  BOOST_TEST(!has_event("SiteFenced"));  // not before the store confirmed
  store_ok();
  BOOST_TEST(has_event("SiteFenced"));
  BOOST_TEST(fenced() == std::vector<std::string>{"b"});  // super_read_only ON, sessions ended
  BOOST_TEST((st.durable.manually_fenced == std::set<std::string>{"b"}));
  // Removed from the annotation: unfenced.
  run(input::annotate{fenced_sites_annotation, ""});
  BOOST_TEST(persisted_next().manually_fenced.empty());
  store_ok();
  BOOST_TEST(has_event("SiteUnfenced"));
}

BOOST_AUTO_TEST_CASE(the_active_primary_is_refused_and_nothing_changes) {
  settled("a", 1, gtid(U1, 1, 5), gtid(U1, 1, 5));
  run(input::annotate{fenced_sites_annotation, "a"});
  BOOST_TEST(answer.value_or("").find("a is the active primary") != std::string::npos);
  BOOST_TEST(count<effect::persist>() == 0u);
  BOOST_TEST(has_event("FenceRejected"));
  BOOST_TEST(st.fence_note.find("active primary") != std::string::npos);
  // Re-evaluated every poll, said once.
  advance(2s);
  report(rep("b", site_state::read_only, gtid(U1, 1, 5), true));
  BOOST_TEST(!has_event("FenceRejected"));
  BOOST_TEST(count<effect::persist>() == 0u);
  // The one-site request says the same.
  st.fence_annotation.reset();
  run(input::annotate{fence_request_key, "on:a"});
  BOOST_TEST(answer.value_or("").rfind("rejected: a is the active primary", 0) == 0u);
  BOOST_TEST(count<effect::persist>() == 0u);
}

BOOST_AUTO_TEST_CASE(a_one_site_request_is_recorded) {
  settled("a", 1, gtid(U1, 1, 5), gtid(U1, 1, 5));
  run(input::annotate{fence_request_key, "on:c"});
  BOOST_TEST(answer.value_or("") == "accepted: fenced: c");
  BOOST_TEST((persisted_next().manually_fenced == std::set<std::string>{"c"}));
  store_ok();
  run(input::annotate{fence_request_key, "on:b"});  // b is the last candidate left
  BOOST_TEST(answer.value_or("").find("would leave no failover candidate") != std::string::npos);
  BOOST_TEST(count<effect::persist>() == 0u);
}

BOOST_AUTO_TEST_CASE(a_fenced_site_is_never_a_failover_candidate) {
  settled("a", 1, gtid(U1, 1, 5), gtid(U1, 1, 5));
  run(input::annotate{fenced_sites_annotation, "c"});
  store_ok();
  // c holds more than b: without the fence it would win.
  report(rep("b", site_state::read_only, gtid(U1, 1, 5), true));
  report(rep("c", site_state::read_only, gtid(U1, 1, 7), true));
  report(rep("a", site_state::unreachable));
  auto next = persisted_next();
  BOOST_TEST(next.plan.kind == plan_kind::failover);
  BOOST_TEST(next.plan.candidate == "b");
}

BOOST_AUTO_TEST_CASE(a_fenced_site_found_writable_is_fenced_again) {
  settled("a", 1, gtid(U1, 1, 5), gtid(U1, 1, 5));
  run(input::annotate{fenced_sites_annotation, "c"});
  store_ok();
  run(input::fenced{"c", true});
  advance(2s);
  report(rep("c", site_state::writable));
  BOOST_TEST(fenced() == std::vector<std::string>{"c"});
}

BOOST_AUTO_TEST_CASE(a_planned_failover_to_a_fenced_site_is_refused) {
  settled("a", 1, gtid(U1, 1, 5), gtid(U1, 1, 5));
  run(input::annotate{fenced_sites_annotation, "b"});
  store_ok();
  input::switchover sw;
  sw.target = "b";
  run(sw);
  BOOST_TEST(answer.value_or("").rfind("rejected", 0) == 0u, answer.value_or(""));
  BOOST_TEST(count<effect::persist>() == 0u);
}

BOOST_AUTO_TEST_CASE(an_annotation_refused_during_a_plan_is_applied_after_it) {
  settled("a", 1, gtid(U1, 1, 5), gtid(U1, 1, 5));
  st.durable.plan_active = true;  // a plan runs
  run(input::annotate{fenced_sites_annotation, "b"});
  BOOST_TEST(answer.value_or("").find("a plan is running") != std::string::npos);
  BOOST_TEST(count<effect::persist>() == 0u);
  st.durable.plan_active = false;
  advance(2s);
  report(rep("b", site_state::read_only, gtid(U1, 1, 5), true));
  BOOST_TEST((persisted_next().manually_fenced == std::set<std::string>{"b"}));
}

BOOST_AUTO_TEST_SUITE_END()
