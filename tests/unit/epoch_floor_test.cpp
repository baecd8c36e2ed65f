// Table tests of epoch recovery's pure step (actors/operator/decide/epoch_floor.hpp): an operator
// with lost or stale state resumes from the highest view the sidecars hold, never below it.
#include <boost/test/unit_test.hpp>

#include "actors/operator/decide/epoch_floor.hpp"

using namespace br;

namespace {

topology_view view(uint64_t epoch, const std::string& active, const std::string& deposing = "",
                   const std::string& signature = "") {
  topology_view v;
  v.epoch = epoch;
  v.active_site = active;
  v.deposing = deposing;
  v.observed_at_ms = 1714564800000 + static_cast<int64_t>(epoch);
  v.signature = signature;
  return v;
}

durable_state stored(uint64_t epoch, const std::string& active, uint64_t plan_epoch = 0) {
  durable_state d;
  d.view = view(epoch, active);
  d.last_failover_ms = 1714000000000;
  d.last_failover_target = active;
  d.promotion_gtid = "uuid:1-10";
  if (plan_epoch != 0) {
    d.plan_active = true;
    d.plan.id = 3;
    d.plan.epoch = plan_epoch;
    d.plan.candidate = "pdx";
    d.plan.old_primary = "iad";
    d.plan.phase = plan_phase::gating;
  }
  return d;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(epoch_floor)

BOOST_AUTO_TEST_CASE(resume_above_held_table) {
  struct row {
    const char* name;
    durable_state stored;
    std::vector<topology_view> held;
    bool raised;
    bool plan_dropped;
    uint64_t epoch;
    std::string active, deposing;
    bool plan_active;
  };
  std::vector<row> rows = {
      {"nothing held", stored(5, "iad"), {}, false, false, 5, "iad", "", false},
      {"empty state, nothing held", durable_state{}, {}, false, false, 0, "", "", false},
      {"held lower", stored(5, "iad"), {view(3, "pdx", "", "k:aa")}, false, false, 5, "iad", "",
       false},
      {"held equal", stored(5, "iad"), {view(5, "pdx", "", "k:aa")}, false, false, 5, "iad", "",
       false},
      {"held higher: replaced", stored(5, "iad"), {view(8, "pdx", "iad", "k:aa")}, true, false, 8,
       "pdx", "iad", false},
      {"empty state (lost), held higher", durable_state{}, {view(12, "pdx", "", "k:aa")}, true,
       false, 12, "pdx", "", false},
      {"the highest of several wins",
       stored(5, "iad"),
       {view(7, "iad", "", "k:1"), view(11, "", "iad", "k:2"), view(9, "pdx", "", "k:3")},
       true, false, 11, "", "iad", false},
      {"the highest listed first",
       stored(5, "iad"),
       {view(11, "", "iad", "k:2"), view(7, "iad", "", "k:1")},
       true, false, 11, "", "iad", false},
      {"plan older than the held view: dropped", stored(5, "iad", 5), {view(8, "pdx", "", "k:aa")},
       true, true, 8, "pdx", "", false},
      {"plan at the held epoch: kept", stored(5, "iad", 8), {view(8, "", "iad", "k:aa")}, true,
       false, 8, "", "iad", true},
      {"plan kept when nothing is raised", stored(6, "", 6), {view(6, "", "iad", "k:aa")}, false,
       false, 6, "", "", true},
  };
  for (const auto& r : rows) {
    auto res = resume_above_held(r.stored, r.held);
    BOOST_TEST_CONTEXT(r.name) {
      BOOST_TEST(res.raised == r.raised);
      BOOST_TEST(res.plan_dropped == r.plan_dropped);
      BOOST_TEST(res.durable.view.epoch == r.epoch);
      BOOST_TEST(res.durable.view.active_site == r.active);
      BOOST_TEST(res.durable.view.deposing == r.deposing);
      BOOST_TEST(res.durable.plan_active == r.plan_active);
      // The operator signs views as they leave it; the stored view never carries a signature.
      BOOST_TEST(res.durable.view.signature.empty());
      // Never below what was stored, never below what is held.
      BOOST_TEST(res.durable.view.epoch >= r.stored.view.epoch);
      for (const auto& h : r.held) BOOST_TEST(res.durable.view.epoch >= h.epoch);
      // The rest of the durable state is kept.
      BOOST_TEST(res.durable.last_failover_ms == r.stored.last_failover_ms);
      BOOST_TEST(res.durable.last_failover_target == r.stored.last_failover_target);
      BOOST_TEST(res.durable.promotion_gtid == r.stored.promotion_gtid);
      if (r.plan_active) {
        BOOST_TEST(res.durable.plan.id == r.stored.plan.id);
        BOOST_TEST(res.durable.plan.epoch == r.stored.plan.epoch);
      }
      if (r.plan_dropped) {
        BOOST_TEST(res.durable.plan.id == 0u);
        BOOST_TEST(res.durable.plan.epoch == 0u);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(a_raised_view_keeps_its_observed_time) {
  auto held = view(8, "pdx", "iad", "k:aa");
  auto res = resume_above_held(stored(5, "iad"), {held});
  BOOST_REQUIRE(res.raised);
  BOOST_TEST(res.durable.view.observed_at_ms == held.observed_at_ms);
  // Unchanged input comes back as it was, signature and all.
  auto kept = stored(5, "iad");
  kept.view.signature = "k:bb";
  auto same = resume_above_held(kept, {view(4, "pdx")});
  BOOST_TEST(!same.raised);
  BOOST_TEST(same.durable.view.signature == "k:bb");
}

BOOST_AUTO_TEST_SUITE_END()
