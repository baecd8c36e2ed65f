// spec.restoreInPlace's freeze through the real coordinator actor and its store (virtual time,
// mock site_io, recording platform): the token and the freeze are stored before the active site
// is fenced; a lost primary is not failed over while frozen, also after a coordinator restart
// that loads the freeze back (the same token then changes nothing: no second fence); the lift is
// stored, the site re-asserted through the promotion path, and only then does the failover the
// freeze held back run; the used token never arms again.
#include <boost/test/unit_test.hpp>

#include "actors/operator/decide/restore_freeze.hpp"
#include "tests/actors/operator_fixture.hpp"

using namespace br;
using namespace br::test;

namespace {

const std::string T1 = "2026-11-26T15:00:00Z";

struct frozen_group : operator_fixture {
  frozen_group() {
    add_site("a", site_role::primary_candidate);
    add_site("b", site_role::primary_candidate);
    io_rec->probe["a"] = writable_probe(gtid(U1, 1, 10));
    io_rec->probe["b"] = read_only_probe(gtid(U1, 1, 10), true);
  }
};

caf::error crash() { return caf::make_error(caf::sec::runtime_error, "injected crash"); }

}  // namespace

BOOST_FIXTURE_TEST_CASE(the_freeze_is_durable_and_holds_a_failover_across_a_restart, frozen_group) {
  start();
  polls(2);
  BOOST_REQUIRE_EQUAL(view().active_site, "a");

  auto answer = annotate(restore_freeze_key, "freeze:" + T1 + ":a");
  BOOST_TEST(answer.rfind("accepted:", 0) == 0u, answer);
  BOOST_TEST(platform.rec->disk.restore_freeze.token == T1);
  BOOST_TEST(platform.rec->disk.restore_freeze.frozen);
  BOOST_TEST(platform.rec->disk.restore_freeze.site == "a");
  BOOST_TEST(io_rec->count("a", mysql_op::fence) == 1u);

  // The primary is lost while frozen: no failover.
  io_rec->probe["a"] = failed_probe();
  polls(6);
  BOOST_TEST(exec->plans.empty());

  // The coordinator restarts and loads the freeze back; asked again (a controller restarted
  // mid-way, or its next Fencing pass), it stores nothing and fences again (H3 of issue 21).
  auto old = child("coordinator");
  self->send_exit(old, crash());
  run();
  advance(1s);
  BOOST_REQUIRE(child("coordinator"));
  BOOST_TEST(platform.rec->loads == 2u);
  polls(6);
  BOOST_TEST(exec->plans.empty());
  answer = annotate(restore_freeze_key, "freeze:" + T1 + ":a");
  BOOST_TEST(answer.rfind("accepted: already frozen", 0) == 0u, answer);
  BOOST_TEST(platform.rec->loads == 2u);
  BOOST_TEST(io_rec->count("a", mysql_op::fence) == 2u);

  // Cancelled (nothing loaded): stored, a re-asserted through the promotion path (it does not
  // answer: that fails), then the failover the freeze held back runs (nobody is restore-pending).
  answer = annotate(restore_freeze_key, "cancel:" + T1);
  BOOST_TEST(answer.rfind("accepted:", 0) == 0u, answer);
  BOOST_TEST(!platform.rec->disk.restore_freeze.frozen);
  BOOST_TEST(io_rec->count("a", mysql_op::promote_switch) == 1u);
  polls(6);
  BOOST_REQUIRE_EQUAL(exec->plans.size(), 1u);
  BOOST_TEST(exec->plans[0].candidate == "b");

  // The used token never arms again.
  answer = annotate(restore_freeze_key, "freeze:" + T1 + ":a");
  BOOST_TEST(answer.rfind("rejected:", 0) == 0u, answer);
  check_no_unexpected();
}
