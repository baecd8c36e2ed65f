// Table tests of the sidecar's pure fencing rules and view adoption (docs/safety.md rules 1, 2, 6).
#include <boost/test/unit_test.hpp>

#include "actors/sidecar/fencing/fencing_rules.hpp"

using namespace br;
using namespace br::sidecar;
using namespace std::chrono_literals;

namespace {

const time_point t0 = time_point{} + 10h;  // process start
constexpr auto lease = 20s;

sidecar_view view(uint64_t epoch, std::string active, std::string deposing = "") {
  sidecar_view v;
  v.present = true;
  v.view.epoch = epoch;
  v.view.active_site = std::move(active);
  v.view.deposing = std::move(deposing);
  return v;
}

peer_observation peer(peer_view_kind k, uint64_t epoch, time_point sent) {
  return {"peer:8080", k, epoch, sent};
}

/// A writable primary "a" with view epoch 5 naming it; everyone silent since the start.
fencing_input base(duration since_start) {
  fencing_input in;
  in.my_site = "a";
  in.view = view(5, "a");
  in.mysql_reachable = true;
  in.mysql_writable = true;
  in.window_start = t0;
  in.now = t0 + since_start;
  in.lease_timeout = lease;
  return in;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(fencing_rules)

BOOST_AUTO_TEST_CASE(adoption_by_source_and_epoch) {
  struct row {
    bool present;
    uint64_t cached;
    uint64_t offered;
    view_source src;
    bool adopt;
  };
  const row rows[] = {
      {false, 0, 0, view_source::peer, true},       {false, 0, 3, view_source::operator_poll, true},
      {true, 5, 4, view_source::operator_poll, false}, {true, 5, 5, view_source::operator_poll, true},
      {true, 5, 6, view_source::operator_poll, true},  {true, 5, 5, view_source::push, true},
      {true, 5, 4, view_source::push, false},         {true, 5, 5, view_source::boot, true},
      {true, 5, 4, view_source::boot, false},         {true, 5, 5, view_source::peer, false},
      {true, 5, 4, view_source::peer, false},         {true, 5, 6, view_source::peer, true},
      {true, 5, 5, view_source::file, false},         {true, 5, 6, view_source::file, true},
  };
  for (auto& r : rows) {
    sidecar_view cur;
    cur.present = r.present;
    cur.view.epoch = r.cached;
    topology_view off;
    off.epoch = r.offered;
    BOOST_TEST_CONTEXT("cached " << r.present << "/" << r.cached << " offered " << r.offered
                                 << " source " << int(r.src)) {
      BOOST_TEST(should_adopt(cur, off, r.src) == r.adopt);
    }
  }
}

BOOST_AUTO_TEST_CASE(view_conflict_table) {
  BOOST_TEST((view_conflict(sidecar_view{}, "a") == fence_reason::none));
  BOOST_TEST((view_conflict(view(1, "a"), "a") == fence_reason::none));
  BOOST_TEST((view_conflict(view(1, "b"), "a") == fence_reason::mismatch));
  BOOST_TEST((view_conflict(view(1, "b", "a"), "a") == fence_reason::mismatch));
  BOOST_TEST((view_conflict(view(1, "", "a"), "a") == fence_reason::transition));
  BOOST_TEST((view_conflict(view(1, "", "b"), "a") == fence_reason::none));
  BOOST_TEST((view_conflict(view(1, "", ""), "a") == fence_reason::none));
}

BOOST_AUTO_TEST_CASE(nothing_happens_unless_mysql_is_reachable_and_writable) {
  for (auto [reach, writable] : {std::pair{false, false}, std::pair{true, false}, std::pair{false, true}}) {
    auto in = base(10min);  // lease long expired, view names another site
    in.view = view(9, "b");
    in.refreshed = true;
    in.mysql_reachable = reach;
    in.mysql_writable = writable;
    auto d = decide_fencing(in);
    BOOST_TEST((d.action == fencing_action::none));
    BOOST_TEST(!d.rearm);
  }
}

BOOST_AUTO_TEST_CASE(rule1_refreshes_once_then_fences) {
  struct row {
    sidecar_view v;
    bool refreshed;
    fencing_action action;
    fence_reason reason;
  };
  const row rows[] = {
      {view(6, "b"), false, fencing_action::refresh_view, fence_reason::mismatch},
      {view(6, "b"), true, fencing_action::fence, fence_reason::mismatch},
      {view(6, "", "a"), false, fencing_action::refresh_view, fence_reason::transition},
      {view(6, "", "a"), true, fencing_action::fence, fence_reason::transition},
      {view(6, "", "b"), true, fencing_action::none, fence_reason::none},
      {view(6, "a"), true, fencing_action::none, fence_reason::none},
  };
  for (auto& r : rows) {
    // Rule 1 ignores the lease: operator contact is fresh and it is still the startup grace.
    auto in = base(1s);
    in.last_operator_contact = in.now;
    in.view = r.v;
    in.refreshed = r.refreshed;
    auto d = decide_fencing(in);
    BOOST_TEST_CONTEXT(r.v.view.active_site << "/" << r.v.view.deposing << " refreshed "
                                            << r.refreshed) {
      BOOST_TEST((d.action == r.action));
      BOOST_TEST((d.reason == r.reason));
    }
  }
}

BOOST_AUTO_TEST_CASE(startup_grace_holds_for_a_full_lease_inclusive) {
  auto in = base(lease);  // exactly one lease since start, nobody ever answered
  BOOST_TEST((decide_fencing(in).action == fencing_action::none));
  in.now = t0 + lease + 1ns;
  auto d = decide_fencing(in);
  BOOST_TEST((d.action == fencing_action::fence));
  BOOST_TEST((d.reason == fence_reason::lease));
}

BOOST_AUTO_TEST_CASE(lease_boundary_on_operator_contact) {
  // Operator last contacted (sent) at t0+30s; now = contact + lease is not yet silent.
  auto in = base(50s);
  in.last_operator_contact = t0 + 30s;
  BOOST_TEST((decide_fencing(in).action == fencing_action::none));
  in.now = t0 + 50s + 1ms;
  BOOST_TEST((decide_fencing(in).action == fencing_action::fence));
}

BOOST_AUTO_TEST_CASE(anchoring_peers_by_kind_epoch_and_age) {
  struct row {
    peer_observation p;
    bool anchors;
  };
  auto now = t0 + 100s;
  const row rows[] = {
      {peer(peer_view_kind::view, 5, now - 1s), true},     // same epoch, fresh
      {peer(peer_view_kind::view, 7, now - 1s), true},     // newer epoch
      {peer(peer_view_kind::view, 4, now - 1s), false},    // older epoch: anchors nobody
      {peer(peer_view_kind::view, 5, now - lease), true},  // exactly a lease ago
      {peer(peer_view_kind::view, 5, now - lease - 1ns), false},
      {peer(peer_view_kind::no_view, 0, now - 1s), false},   // restarted without a view
      {peer(peer_view_kind::old_peer, 0, now - 1s), false},  // 404: operator-only path
      {peer(peer_view_kind::unknown, 0, now - 1s), false},
  };
  for (auto& r : rows) {
    auto in = base(100s);  // operator silent since start (80 s past the lease)
    in.peers = {r.p};
    auto d = decide_fencing(in);
    BOOST_TEST_CONTEXT("kind " << int(r.p.kind) << " epoch " << r.p.epoch << " age "
                               << (now - r.p.last_view_sent).count()) {
      BOOST_TEST(peer_anchors(r.p, in.view, now, lease) == r.anchors);
      BOOST_TEST((d.action == (r.anchors ? fencing_action::none : fencing_action::fence)));
    }
  }
}

BOOST_AUTO_TEST_CASE(one_anchoring_peer_among_silent_ones_is_enough) {
  auto in = base(100s);
  in.peers = {peer(peer_view_kind::view, 5, t0), peer(peer_view_kind::no_view, 0, in.now),
              peer(peer_view_kind::view, 5, in.now - 2s)};
  BOOST_TEST((decide_fencing(in).action == fencing_action::none));
  in.peers.pop_back();
  BOOST_TEST((decide_fencing(in).action == fencing_action::fence));
}

BOOST_AUTO_TEST_CASE(no_view_of_our_own_any_peer_view_anchors) {
  auto in = base(100s);
  in.view = sidecar_view{};
  in.peers = {peer(peer_view_kind::view, 0, in.now - 1s)};
  BOOST_TEST((decide_fencing(in).action == fencing_action::none));
  in.peers = {peer(peer_view_kind::no_view, 0, in.now - 1s)};
  BOOST_TEST((decide_fencing(in).action == fencing_action::fence));
}

BOOST_AUTO_TEST_CASE(no_peers_and_silent_operator_fences) {
  auto in = base(100s);
  in.last_operator_contact = t0 + 79s;  // 21 s ago
  auto d = decide_fencing(in);
  BOOST_TEST((d.action == fencing_action::fence));
  BOOST_TEST(!d.why.empty());
  in.last_operator_contact = t0 + 80s;  // exactly 20 s ago
  BOOST_TEST((decide_fencing(in).action == fencing_action::none));
}

BOOST_AUTO_TEST_CASE(rearm_after_operator_unfenced_gives_a_fresh_window) {
  auto in = base(10min);  // lease long expired
  in.fenced = true;       // we fenced earlier; MySQL is writable again
  auto d = decide_fencing(in);
  BOOST_TEST(d.rearm);
  BOOST_TEST((d.action == fencing_action::none));
  // Without the fenced flag the same situation fences on the lease.
  in.fenced = false;
  d = decide_fencing(in);
  BOOST_TEST(!d.rearm);
  BOOST_TEST((d.action == fencing_action::fence));
}

BOOST_AUTO_TEST_CASE(rearm_does_not_suspend_rule1) {
  auto in = base(10min);
  in.fenced = true;
  in.view = view(9, "b");
  in.refreshed = true;
  auto d = decide_fencing(in);
  BOOST_TEST(d.rearm);
  BOOST_TEST((d.action == fencing_action::fence));
  BOOST_TEST((d.reason == fence_reason::mismatch));
}

BOOST_AUTO_TEST_CASE(read_only_after_fence_is_not_a_rearm) {
  auto in = base(10min);
  in.fenced = true;
  in.mysql_writable = false;
  BOOST_TEST(!decide_fencing(in).rearm);
}

// Rule 6 applied to rule 7: the heartbeat is dated at the lease's last renewal, never at `now`.
BOOST_AUTO_TEST_CASE(lease_anchor_is_the_freshest_anchoring_contact) {
  auto in = base(30s);
  BOOST_TEST((lease_anchor(in) == t0));  // nobody answered: the window start
  in.last_operator_contact = t0 + 12s;
  BOOST_TEST((lease_anchor(in) == t0 + 12s));
  // An anchoring peer's later view (send time) renews it; an older-epoch or no-view peer does not.
  in.peers = {peer(peer_view_kind::view, 5, t0 + 17s), peer(peer_view_kind::view, 4, t0 + 29s),
              peer(peer_view_kind::no_view, 0, t0 + 29s), peer(peer_view_kind::old_peer, 0, t0 + 29s)};
  BOOST_TEST((lease_anchor(in) == t0 + 17s));
  // A peer view older than the lease anchors nobody, even when it is the latest contact.
  in.last_operator_contact = t0;
  in.peers = {peer(peer_view_kind::view, 5, t0 + 17s)};
  in.now = t0 + 37s;
  BOOST_TEST((lease_anchor(in) == t0 + 17s));  // exactly a lease old: still anchoring
  in.now = t0 + 37s + 1ms;
  BOOST_TEST((lease_anchor(in) == t0));  // older: only the window start is left
  // Re-arm: fenced by us, writable again (the operator unfenced it): a fresh lease at now.
  in.fenced = true;
  BOOST_TEST((lease_anchor(in) == in.now));
  // The lease decision agrees with the anchor at the boundary.
  auto d = base(lease + 5s);
  d.last_operator_contact = t0 + 5s;
  BOOST_TEST((decide_fencing(d).action == fencing_action::none));  // exactly lease_timeout
  d.now += 1ms;
  BOOST_TEST((decide_fencing(d).action == fencing_action::fence));
}

BOOST_AUTO_TEST_CASE(names_are_stable) {
  BOOST_TEST(to_string(fence_reason::mismatch) == "mismatch");
  BOOST_TEST(to_string(fence_reason::transition) == "transition");
  BOOST_TEST(to_string(fence_reason::lease) == "lease");
  BOOST_TEST(to_string(fencing_action::refresh_view) == "refresh_view");
}

BOOST_AUTO_TEST_SUITE_END()
