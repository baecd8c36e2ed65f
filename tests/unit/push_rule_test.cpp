// Table tests of the pushed-view acknowledgement rule (actors/sidecar/fencing/push_rule.hpp): each fact a
// pushed view meets, and what the sidecar does next.
#include <boost/test/unit_test.hpp>

#include "actors/sidecar/fencing/push_rule.hpp"

using namespace br;
using namespace br::sidecar;

namespace {

topology_view view(uint64_t epoch, const std::string& active, const std::string& deposing = "") {
  return {epoch, active, deposing, 0, ""};
}

sidecar_view cached(uint64_t epoch, const std::string& active) { return {true, view(epoch, active)}; }

push_progress pushed(const topology_view& v) { return {v, "s1", {}}; }

mysql_outcome probe_ok(bool super_read_only) {
  mysql_outcome o;
  o.ok = true;
  o.probe.super_read_only = super_read_only;
  o.probe.read_only = super_read_only;
  return o;
}

mysql_outcome probe_failed(const std::string& kind) {
  mysql_outcome o;
  o.ok = false;
  o.error_kind = kind;
  o.error = kind + ": test";
  return o;
}

const char* name(push_action a) {
  switch (a) {
    case push_action::answer: return "answer";
    case push_action::probe: return "probe";
    case push_action::fence: return "fence";
    case push_action::refresh: return "refresh";
  }
  return "?";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(push_rule)

BOOST_AUTO_TEST_CASE(after_the_offer) {
  struct row {
    const char* name;
    topology_view pushed;
    sidecar_view cached;
    push_action action;
    bool ok, stale;
  };
  std::vector<row> rows = {
      {"older than the cache: stale", view(3, "s2"), cached(5, "s2"), push_action::answer, false,
       true},
      {"names this site: ack without MySQL", view(5, "s1"), cached(5, "s1"), push_action::answer,
       true, false},
      {"names another site: probe first", view(5, "s2"), cached(5, "s2"), push_action::probe,
       false, false},
      {"deposing view: probe first", view(6, "", "s1"), sidecar_view{true, view(6, "", "s1")}, push_action::probe,
       false, false},
  };
  for (const auto& r : rows) {
    auto res = push_step(pushed(r.pushed), push_event::offered{r.cached, true, true});
    BOOST_TEST(name(res.action) == name(r.action), r.name);
    BOOST_TEST(res.progress.ack.ok == r.ok, r.name);
    BOOST_TEST(res.progress.ack.stale == r.stale, r.name);
    BOOST_TEST(res.progress.ack.epoch == r.cached.view.epoch, r.name);
  }
}

BOOST_AUTO_TEST_CASE(after_the_probe) {
  struct row {
    const char* name;
    topology_view pushed;
    push_event::probed probed;
    push_action action;
    bool ok, fenced, reachable;
  };
  std::vector<row> rows = {
      {"already fenced: ack", view(5, "s2"), {probe_ok(true), ""}, push_action::answer, true, true,
       true},
      {"mysqld provably down: ack (boots fenced)", view(5, "s2"), {probe_failed("down"), ""},
       push_action::answer, true, false, false},
      {"mysqld provably down, deposing view: ack", view(6, "", "s1"), {probe_failed("down"), ""},
       push_action::answer, true, false, false},
      {"lost connection to a running mysqld: unknown, no ack", view(5, "s2"),
       {probe_failed("lost_connection"), ""}, push_action::answer, false, false, true},
      {"lost connection, deposing view: no ack", view(6, "", "s1"),
       {probe_failed("lost_connection"), ""}, push_action::answer, false, false, true},
      {"refused, not provably down (remote or unknown errno): no ack", view(5, "s2"),
       {probe_failed("refused"), ""}, push_action::answer, false, false, true},
      {"auth failure: no ack", view(5, "s2"), {probe_failed("auth"), ""}, push_action::answer,
       false, false, true},
      {"timeout: unknown, no ack", view(5, "s2"), {probe_failed("timeout"), ""},
       push_action::answer, false, false, true},
      {"probe request failed: no ack", view(5, "s2"), {std::nullopt, "request_timeout"},
       push_action::answer, false, false, true},
      {"writable, deposed: fence now", view(6, "", "s1"), {probe_ok(false), ""},
       push_action::fence, false, false, true},
      {"writable, another site named: refresh once", view(6, "s2"), {probe_ok(false), ""},
       push_action::refresh, false, false, true},
  };
  for (const auto& r : rows) {
    auto res = push_step(pushed(r.pushed), r.probed);
    BOOST_TEST(name(res.action) == name(r.action), r.name);
    BOOST_TEST(res.progress.ack.ok == r.ok, r.name);
    BOOST_TEST(res.progress.ack.fenced == r.fenced, r.name);
    BOOST_TEST(res.progress.ack.mysql_reachable == r.reachable, r.name);
    if (!r.ok && r.action == push_action::answer) BOOST_TEST(!res.progress.ack.error.empty(), r.name);
  }
}

BOOST_AUTO_TEST_CASE(after_the_refresh) {
  struct row {
    const char* name;
    std::optional<sidecar_view> refreshed;
    push_action action;
    bool stale;
  };
  std::vector<row> rows = {
      {"fresher view names this site: superseded", cached(7, "s1"), push_action::answer, true},
      {"same epoch naming this site: fence", cached(6, "s1"), push_action::fence, false},
      {"fresher view names another site: fence", cached(7, "s3"), push_action::fence, false},
      {"no answer: fence", std::nullopt, push_action::fence, false},
      {"empty cache: fence", sidecar_view{}, push_action::fence, false},
  };
  for (const auto& r : rows) {
    auto res = push_step(pushed(view(6, "s2")), push_event::refreshed{r.refreshed});
    BOOST_TEST(name(res.action) == name(r.action), r.name);
    BOOST_TEST(res.progress.ack.stale == r.stale, r.name);
    BOOST_TEST(!res.progress.ack.ok, r.name);
  }
}

BOOST_AUTO_TEST_CASE(after_the_fence_only_a_confirmed_fence_is_acknowledged) {
  auto ok = push_step(pushed(view(6, "", "s1")), push_event::fence_done{true, ""});
  BOOST_TEST(name(ok.action) == std::string("answer"));
  BOOST_TEST(ok.progress.ack.ok);
  BOOST_TEST(ok.progress.ack.fenced);
  auto bad = push_step(pushed(view(6, "", "s1")), push_event::fence_done{false, "fence failed: x"});
  BOOST_TEST(!bad.progress.ack.ok);
  BOOST_TEST(!bad.progress.ack.fenced);
  BOOST_TEST(bad.progress.ack.error == "fence failed: x");
}

BOOST_AUTO_TEST_SUITE_END()
