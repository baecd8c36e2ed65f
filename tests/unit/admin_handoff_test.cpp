// The idempotent hand-off of admin annotations (actors/operator/decide/admin_handoff.hpp): issue 19
// finding 13 (a reclone whose hand-off answer was lost is handed again and must not run twice)
// and issue 20's planned failover, whose annotation stays until the request ends.
#include <boost/test/unit_test.hpp>

#include "actors/operator/decide/admin_handoff.hpp"
#include "actors/operator/decide/group_step.hpp"
#include "actors/operator/decide/planned_failover.hpp"

using namespace br;

namespace {

const std::string planned = planned_failover_annotation;
const std::string reclone = reclone_annotation;

handoff_facts idle() { return {}; }

handoff_facts running_switchover(uint64_t id, const std::string& target, const std::string& phase) {
  handoff_facts f;
  f.plan_active = true;
  f.plan.id = id;
  f.plan.kind = plan_kind::switchover;
  f.plan.candidate = target;
  f.planned.phase = phase;
  f.planned.target = target;
  f.planned.plan_id = id;
  f.planned.request = id;
  return f;
}

handoff_facts deferred(uint64_t request, const std::string& target) {
  handoff_facts f;
  f.planned.phase = "Deferred";
  f.planned.reason = "CooldownActive";
  f.planned.target = target;
  f.planned.request = request;
  return f;
}

handoff_facts ended(uint64_t id, const std::string& target, const std::string& phase,
                    const std::string& reason) {
  handoff_facts f;
  f.planned.phase = phase;
  f.planned.target = target;
  f.planned.plan_id = id;
  f.planned.request = id;
  f.planned.reason = reason;
  return f;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(admin_handoff)

BOOST_AUTO_TEST_CASE(the_id_travels_in_the_key) {
  BOOST_TEST(handoff_key(reclone, "") == reclone);
  auto k = handoff_key(reclone, handoff_id("b:confirm=g", "41"));
  BOOST_TEST(k == reclone + "#b:confirm=g@41");
  auto p = split_handoff_key(k);
  BOOST_TEST(p.annotation == reclone);
  BOOST_TEST(p.id == "b:confirm=g@41");
  auto bare = split_handoff_key(planned);
  BOOST_TEST(bare.annotation == planned);
  BOOST_TEST(bare.id.empty());
}

// Finding 13: the reclone was taken (its plan may even be over), the answer was lost, the source
// hands the same request again: it is answered, not run a second time.
BOOST_AUTO_TEST_CASE(a_reclone_handed_again_is_answered_not_run_again) {
  const std::string id = handoff_id("b:confirm=g", "41");
  taken_request last = remember_taken({}, reclone, id, "accepted: reclone of b (cold)", idle());
  BOOST_TEST(last.id == id);
  struct row {
    const char* what;
    std::string id;
    handoff_facts now;
    std::optional<std::string> want;
  };
  const std::vector<row> rows = {
      {"same id, plan over", id, idle(), std::string("already taken: accepted: reclone of b (cold)")},
      {"same id, a plan running", id, running_switchover(7, "c", "Draining"),
       std::string("already taken: accepted: reclone of b (cold)")},
      {"a new annotation (new resourceVersion)", handoff_id("b:confirm=g", "57"), idle(), std::nullopt},
      {"no id (standalone API)", "", idle(), std::nullopt},
  };
  for (const auto& r : rows)
    BOOST_TEST((answer_again(last, reclone, "b:confirm=g", r.id, r.now) == r.want), r.what);
}

BOOST_AUTO_TEST_CASE(what_is_remembered) {
  taken_request none;
  const std::string id = handoff_id("b", "9");
  // busy: the request was not taken, it comes again and is acted on then
  BOOST_TEST(remember_taken(none, reclone, id, "busy: loading", idle()).id.empty());
  BOOST_TEST(remember_taken(none, reclone, "", "accepted: reclone of b", idle()).id.empty());
  auto rejected = remember_taken(none, reclone, id, "rejected: b is the active primary", idle());
  BOOST_TEST(rejected.answer == "rejected: b is the active primary");
  BOOST_TEST(rejected.planned_request == 0u);
  // an accepted planned failover remembers the plan that runs it
  auto started = remember_taken(none, planned, id, "accepted: planned failover to b",
                                running_switchover(8, "b", "Draining"));
  BOOST_TEST(started.planned_request == 8u);
  // ... and a deferred one its request number
  auto waits = remember_taken(none, planned, id, "accepted: deferred (onCooldown=defer): ...",
                              deferred(4, "b"));
  BOOST_TEST(waits.planned_request == 4u);
  auto skipped = remember_taken(none, planned, id, "accepted: nothing to do, b is active", idle());
  BOOST_TEST(skipped.planned_request == 0u);
  // an answer again never overwrites the first answer
  auto again = remember_taken(rejected, reclone, id, "already taken: rejected: ...", idle());
  BOOST_TEST(again.answer == rejected.answer);
}

// Issue 20: the planned-failover annotation is asked about until the request ends.
BOOST_AUTO_TEST_CASE(a_planned_failover_asked_again_says_running_then_ended) {
  const std::string id = handoff_id("b", "9");
  auto last = remember_taken({}, planned, id, "accepted: planned failover to b",
                             running_switchover(8, "b", "Draining"));
  struct row {
    const char* what;
    handoff_facts now;
    std::string want;
  };
  auto not_persisted_yet = running_switchover(8, "b", "Draining");
  not_persisted_yet.plan_active = false;  // the plan's write is in flight
  const std::vector<row> rows = {
      {"draining", running_switchover(8, "b", "Draining"), "running: planned failover to b is Draining"},
      {"before the plan is persisted", not_persisted_yet, "running: planned failover to b is Draining"},
      {"succeeded", ended(8, "b", "Succeeded", ""), "ended: planned failover to b Succeeded"},
      {"rolled back", ended(8, "b", "Failed", "LagTimeout"), "ended: planned failover to b Failed (LagTimeout)"},
      {"another record since", ended(9, "c", "Failed", "TargetUnhealthy"),
       "ended: the planned failover request is over"},
      {"deferred (onCooldown=defer)", deferred(8, "b"), "running: planned failover to b is Deferred"},
      {"cancelled while deferred", ended(8, "b", "Failed", "Cancelled"),
       "ended: planned failover to b Failed (Cancelled)"},
  };
  for (const auto& r : rows) {
    auto got = answer_again(last, planned, "b", id, r.now);
    BOOST_TEST(got.has_value(), r.what);
    BOOST_TEST(got.value_or("") == r.want, r.what);
  }
}

// After an operator restart the running plan's annotation is read again with a new id: it is that
// plan's request, not a second one (which would be refused as ConcurrentOperation and cleared).
BOOST_AUTO_TEST_CASE(the_running_plans_own_annotation_read_again_is_adopted) {
  const auto now = running_switchover(8, "b", "WaitingForLag");
  const std::string fresh = handoff_id("b:maxLagWait=30s", "120");
  auto got = answer_again({}, planned, "b:maxLagWait=30s", fresh, now);
  BOOST_TEST(got.value_or("") == "running: planned failover to b is WaitingForLag");
  BOOST_TEST(remember_taken({}, planned, fresh, *got, now).planned_request == 8u);
  BOOST_TEST(!answer_again({}, planned, "c", handoff_id("c", "120"), now).has_value());
  BOOST_TEST(!answer_again({}, reclone, "b:confirm=g", fresh, now).has_value());
  // The same for a Deferred request: its annotation read again with a new id is that request.
  auto waiting = deferred(3, "b");
  auto again = answer_again({}, planned, "b", fresh, waiting);
  BOOST_TEST(again.value_or("") == "running: planned failover to b is Deferred");
  BOOST_TEST(remember_taken({}, planned, fresh, *again, waiting).planned_request == 3u);
  BOOST_TEST(!answer_again({}, planned, "c", fresh, waiting).has_value());
  auto reclone_plan = now;
  reclone_plan.plan.kind = plan_kind::reclone;
  BOOST_TEST(!answer_again({}, planned, "b", fresh, reclone_plan).has_value());
}

BOOST_AUTO_TEST_CASE(what_the_source_does_after_an_answer) {
  struct row {
    std::string annotation;
    std::optional<std::string> answer;
    handoff_next want;
  };
  const std::vector<row> rows = {
      {reclone, std::nullopt, handoff_next::retry},
      {reclone, "busy: loading", handoff_next::retry},
      {reclone, "accepted: reclone of b (cold)", handoff_next::done},
      {reclone, "rejected: unknown site x", handoff_next::done},
      {reclone, "already taken: accepted: reclone of b", handoff_next::done},
      {planned, std::nullopt, handoff_next::retry},
      {planned, "busy: loading", handoff_next::retry},
      {planned, "accepted: planned failover to b", handoff_next::poll},
      {planned, "running: planned failover to b is Draining", handoff_next::poll},
      {planned, "accepted: nothing to do, b is already the active primary", handoff_next::done},
      {planned, "rejected: InvalidAnnotation: ...", handoff_next::done},
      {planned, "ended: planned failover to b Succeeded", handoff_next::done},
  };
  for (const auto& r : rows)
    BOOST_TEST((next_after_answer(r.annotation, r.answer) == r.want),
               r.annotation << " " << r.answer.value_or("(none)"));
}

BOOST_AUTO_TEST_SUITE_END()
