// io/kube client conformance against the API simulator: CRUD, conflicts, watches, status, GC, events.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>

#include <atomic>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "io/kube/client.hpp"
#include "io/kube/events.hpp"
#include "io/kube/reflector.hpp"
#include "io/kube/retry.hpp"
#include "tests/support/kube_sim/simulator.hpp"
#include "tests/support/kube_sim/test_support.hpp"

using namespace br::kube;
using namespace br::kube_sim::test;
using namespace std::chrono_literals;

namespace {

struct sim_fixture {
  br::kube_sim::simulator sim{[] {
    br::kube_sim::options o;
    o.bookmark_interval = 100ms;
    return o;
  }()};
  std::unique_ptr<client> c;
  sim_fixture() {
    sim.start();
    client_options co;
    co.timeout = 5000ms;
    c = std::make_unique<client>(sim_config(sim), co);
    auto crd = c->create(resources::crds, "", load_fixture("test_crd.yaml"));
    BOOST_REQUIRE_MESSAGE(crd.ok(), (crd.ok() ? std::string{} : crd.error().describe()));
  }
  json mfg(const std::string& name, int replicas = 3) {
    return {{"apiVersion", "shipstream.io/v1alpha1"},
            {"kind", "MysqlFailoverGroup"},
            {"metadata", {{"name", name}, {"namespace", "default"}}},
            {"spec", {{"replicas", replicas}, {"mode", "async"}}}};
  }
  json create_mfg(const std::string& name, int replicas = 3) {
    auto r = c->create(mfg_ref, "default", mfg(name, replicas));
    BOOST_REQUIRE_MESSAGE(r.ok(), (r.ok() ? std::string{} : r.error().describe()));
    return *r;
  }
  json configmap(const std::string& name, json labels = json::object()) {
    return {{"apiVersion", "v1"},
            {"kind", "ConfigMap"},
            {"metadata", {{"name", name}, {"namespace", "default"}, {"labels", labels}}},
            {"data", {{"k", name}}}};
  }
};

std::string rv(const json& o) { return o["metadata"].value("resourceVersion", std::string{}); }

// Runs a reflector on a thread and keeps the consumer's view (name -> last object).
struct view_runner {
  reflector refl;
  std::mutex m;
  std::map<std::string, json> view;
  std::vector<watch_event> events;
  std::thread t;
  view_runner(client& c, const resource_ref& r, reflector_options o = {})
      : refl(c, r, "default", [&] {
          o.backoff_initial = 20ms;
          o.backoff_max = 200ms;
          return o;
        }()) {
    t = std::thread([this] {
      refl.run([this](const watch_event& e) {
        std::lock_guard lock{m};
        events.push_back(e);
        const std::string name = e.object["metadata"].value("name", std::string{});
        if (e.type == "DELETED") {
          view.erase(name);
        } else {
          view[name] = e.object;
        }
      });
    });
  }
  ~view_runner() {
    refl.stop();
    t.join();
  }
  // Waits until the view equals `expected` (name -> resourceVersion) or 20 s pass.
  bool converges(const std::map<std::string, std::string>& expected) {
    for (int i = 0; i < 400; ++i) {
      {
        std::lock_guard lock{m};
        std::map<std::string, std::string> have;
        for (auto& [n, o] : view) have[n] = rv(o);
        if (have == expected) return true;
      }
      std::this_thread::sleep_for(50ms);
    }
    return false;
  }
};

std::map<std::string, std::string> server_view(client& c, const resource_ref& r) {
  auto l = c.list_all(r, "default");
  BOOST_REQUIRE(l.ok());
  std::map<std::string, std::string> out;
  for (auto& i : (*l)["items"]) out[i["metadata"]["name"]] = rv(i);
  return out;
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(kube_client, sim_fixture)

BOOST_AUTO_TEST_CASE(errors_carry_status_reason_and_message) {
  auto r = c->get(mfg_ref, "default", "missing");
  BOOST_REQUIRE(!r.ok());
  BOOST_TEST(r.error().status == 404);
  BOOST_TEST(r.error().reason == "NotFound");
  BOOST_TEST(r.error().message.find("\"missing\"") != std::string::npos);
  create_mfg("dup");
  auto again = c->create(mfg_ref, "default", mfg("dup"));
  BOOST_REQUIRE(!again.ok());
  BOOST_TEST(again.error().already_exists());
}

BOOST_AUTO_TEST_CASE(schema_rejects_bad_types_enums_and_missing_required) {
  json bad = mfg("bad");
  bad["spec"] = {{"replicas", "three"}, {"mode", "bogus"}};
  auto r = c->create(mfg_ref, "default", bad);
  BOOST_REQUIRE(!r.ok());
  BOOST_TEST(r.error().status == 422);
  BOOST_TEST(r.error().message.find("spec.replicas") != std::string::npos);
  BOOST_TEST(r.error().message.find("spec.mode") != std::string::npos);
  json missing = mfg("missing");
  missing["spec"].erase("replicas");
  auto m = c->create(mfg_ref, "default", missing);
  BOOST_REQUIRE(!m.ok());
  BOOST_TEST(m.error().message.find("spec.replicas: Required value") != std::string::npos);
  // Unknown fields are pruned, as by a structural schema.
  json extra = mfg("extra");
  extra["spec"]["unknownField"] = 1;
  auto e = c->create(mfg_ref, "default", extra);
  BOOST_REQUIRE(e.ok());
  BOOST_TEST(!(*e)["spec"].contains("unknownField"));
}

BOOST_AUTO_TEST_CASE(stale_update_gets_409_and_retry_converges) {
  json first = create_mfg("g1");
  json a = first, b = first;
  a["spec"]["replicas"] = 4;
  BOOST_REQUIRE(c->update(mfg_ref, a).ok());
  b["spec"]["replicas"] = 5;
  auto stale = c->update(mfg_ref, b);
  BOOST_REQUIRE(!stale.ok());
  BOOST_TEST(stale.error().status == 409);
  BOOST_TEST(stale.error().conflict());
  BOOST_TEST(stale.error().reason == "Conflict");

  // Concurrent incrementers: every increment lands exactly once.
  constexpr int writers = 4, each = 8;
  std::vector<std::thread> ts;
  std::atomic<int> failures{0}, retried{0};
  for (int w = 0; w < writers; ++w) {
    ts.emplace_back([&] {
      for (int i = 0; i < each; ++i) {
        int used = 0;
        retry_options ro;
        ro.attempts = 100;
        ro.backoff = 1ms;
        ro.attempts_used = &used;
        auto r = update_with_retry(*c, mfg_ref, "default", "g1", [](json& o) {
          o["spec"]["replicas"] = o["spec"]["replicas"].get<int>() + 1;
          return true;
        }, false, ro);
        if (!r.ok()) ++failures;
        if (used > 1) ++retried;
      }
    });
  }
  for (auto& t : ts) t.join();
  BOOST_TEST(failures.load() == 0);
  auto final = c->get(mfg_ref, "default", "g1");
  BOOST_REQUIRE(final.ok());
  BOOST_TEST((*final)["spec"]["replicas"].get<int>() == 4 + writers * each);
  BOOST_TEST_MESSAGE("writes that needed a retry: " << retried.load());
}

BOOST_AUTO_TEST_CASE(retry_budget_is_bounded) {
  create_mfg("g2");
  int used = 0, writes = 0;
  retry_options ro;
  ro.attempts = 3;
  ro.backoff = 1ms;
  ro.attempts_used = &used;
  // A competing writer always gets in between our read and our write.
  auto r = update_with_retry(
      [&] { return c->get(mfg_ref, "default", "g2"); },
      [](json& o) {
        o["spec"]["note"] = "mine";
        return true;
      },
      [&](const json& o) {
        ++writes;
        c->merge_patch(mfg_ref, "default", "g2", {{"spec", {{"note", "theirs" + std::to_string(writes)}}}});
        return c->update(mfg_ref, o);
      },
      ro);
  BOOST_REQUIRE(!r.ok());
  BOOST_TEST(r.error().conflict());
  BOOST_TEST(used == 3);
  BOOST_TEST(writes == 3);
  // A mutation that needs no write makes none.
  auto same = update_with_retry(*c, mfg_ref, "default", "g2", [](json&) { return false; });
  BOOST_TEST(same.ok());
}

BOOST_AUTO_TEST_CASE(status_write_never_changes_spec_and_spec_write_never_changes_status) {
  json created = mfg("s1");
  created["status"] = {{"phase", "Bogus"}};
  auto r = c->create(mfg_ref, "default", created);
  BOOST_REQUIRE(r.ok());
  BOOST_TEST(!r->contains("status"));  // status is ignored on create
  BOOST_TEST((*r)["metadata"]["generation"] == 1);

  json obj = *r;
  obj["status"] = {{"phase", "Ready"}};
  obj["spec"]["replicas"] = 9;  // must be ignored by the status endpoint
  auto st = c->update_status(mfg_ref, obj);
  BOOST_REQUIRE(st.ok());
  BOOST_TEST((*st)["status"]["phase"] == "Ready");
  BOOST_TEST((*st)["spec"]["replicas"] == 3);
  BOOST_TEST((*st)["metadata"]["generation"] == 1);

  json spec_write = *st;
  spec_write["spec"]["replicas"] = 5;
  spec_write["status"] = {{"phase", "Hacked"}};
  auto sp = c->update(mfg_ref, spec_write);
  BOOST_REQUIRE(sp.ok());
  BOOST_TEST((*sp)["spec"]["replicas"] == 5);
  BOOST_TEST((*sp)["status"]["phase"] == "Ready");
  BOOST_TEST((*sp)["metadata"]["generation"] == 2);

  auto patched = c->merge_patch(mfg_ref, "default", "s1",
                                {{"spec", {{"replicas", 7}}}, {"status", {{"activeSite", "b"}}}}, "status");
  BOOST_REQUIRE(patched.ok());
  BOOST_TEST((*patched)["spec"]["replicas"] == 5);
  BOOST_TEST((*patched)["status"]["activeSite"] == "b");
  BOOST_TEST((*patched)["metadata"]["generation"] == 2);

  // JSON patch on the main resource; an identical write does not bump resourceVersion.
  auto jp = c->json_patch(mfg_ref, "default", "s1",
                          json::array({{{"op", "replace"}, {"path", "/spec/replicas"}, {"value", 6}}}));
  BOOST_REQUIRE(jp.ok());
  BOOST_TEST((*jp)["spec"]["replicas"] == 6);
  BOOST_TEST((*jp)["metadata"]["generation"] == 3);
  auto noop = c->update(mfg_ref, *jp);
  BOOST_REQUIRE(noop.ok());
  BOOST_TEST(rv(*noop) == rv(*jp));
  auto st_get = c->get_status(mfg_ref, "default", "s1");
  BOOST_REQUIRE(st_get.ok());
  BOOST_TEST((*st_get)["status"]["activeSite"] == "b");
}

BOOST_AUTO_TEST_CASE(pagination_follows_continue_tokens) {
  std::set<std::string> names;
  for (int i = 0; i < 7; ++i) {
    const std::string n = "cm-" + std::to_string(i);
    names.insert(n);
    BOOST_REQUIRE(c->create(resources::configmaps, "default", configmap(n)).ok());
  }
  list_options lo;
  lo.limit = 3;
  auto page = c->list(resources::configmaps, "default", lo);
  BOOST_REQUIRE(page.ok());
  BOOST_TEST((*page)["items"].size() == 3u);
  BOOST_TEST((*page)["metadata"]["remainingItemCount"] == 4);
  BOOST_TEST(!(*page)["metadata"].value("continue", std::string{}).empty());
  auto all = c->list_all(resources::configmaps, "default", lo);
  BOOST_REQUIRE(all.ok());
  std::set<std::string> got;
  for (auto& i : (*all)["items"]) got.insert(i["metadata"]["name"].get<std::string>());
  BOOST_TEST(got == names);
  BOOST_TEST((*all)["items"].size() == names.size());
}

BOOST_AUTO_TEST_CASE(label_and_field_selectors) {
  BOOST_REQUIRE(c->create(resources::configmaps, "default", configmap("a", {{"tier", "db"}, {"site", "x"}})).ok());
  BOOST_REQUIRE(c->create(resources::configmaps, "default", configmap("b", {{"tier", "web"}})).ok());
  BOOST_REQUIRE(c->create(resources::configmaps, "default", configmap("c")).ok());
  auto names = [&](list_options lo) {
    auto l = c->list(resources::configmaps, "default", lo);
    BOOST_REQUIRE(l.ok());
    std::set<std::string> s;
    for (auto& i : (*l)["items"]) s.insert(i["metadata"]["name"].get<std::string>());
    return s;
  };
  auto sel = [&](std::string s) {
    list_options lo;
    lo.label_selector = std::move(s);
    return names(lo);
  };
  using S = std::set<std::string>;
  BOOST_TEST(sel("tier=db") == (S{"a"}));
  BOOST_TEST(sel("tier==web") == (S{"b"}));
  BOOST_TEST(sel("tier!=db") == (S{"b", "c"}));
  BOOST_TEST(sel("tier in (db,web)") == (S{"a", "b"}));
  BOOST_TEST(sel("tier notin (db)") == (S{"b", "c"}));
  BOOST_TEST(sel("site") == (S{"a"}));
  BOOST_TEST(sel("!tier") == (S{"c"}));
  BOOST_TEST(sel("tier,!site") == (S{"b"}));
  list_options fo;
  fo.field_selector = "metadata.name=b";
  BOOST_TEST(names(fo) == (S{"b"}));
  fo.field_selector = "metadata.name!=b";
  BOOST_TEST(names(fo).count("b") == 0u);
  list_options bad;
  bad.label_selector = "tier in (db";
  auto r = c->list(resources::configmaps, "default", bad);
  BOOST_REQUIRE(!r.ok());
  BOOST_TEST(r.error().status == 400);
  bad.label_selector.clear();
  bad.field_selector = "spec.x=1";
  BOOST_TEST(c->list(resources::configmaps, "default", bad).error().status == 400);
}

BOOST_AUTO_TEST_CASE(finalizer_holds_delete_until_removed) {
  json obj = mfg("f1");
  obj["metadata"]["finalizers"] = {"shipstream.io/hold"};
  BOOST_REQUIRE(c->create(mfg_ref, "default", obj).ok());
  auto del = c->remove(mfg_ref, "default", "f1");
  BOOST_REQUIRE(del.ok());
  BOOST_TEST((*del)["metadata"].contains("deletionTimestamp"));
  auto still = c->get(mfg_ref, "default", "f1");
  BOOST_REQUIRE(still.ok());
  BOOST_TEST((*still)["metadata"].contains("deletionTimestamp"));
  auto cleared = c->merge_patch(mfg_ref, "default", "f1", {{"metadata", {{"finalizers", nullptr}}}});
  BOOST_REQUIRE(cleared.ok());
  BOOST_TEST(c->get(mfg_ref, "default", "f1").error().not_found());
}

BOOST_AUTO_TEST_CASE(cascading_delete_background_orphan_foreground) {
  auto owner = [&](const std::string& n) {
    auto r = c->create(resources::configmaps, "default", configmap(n));
    BOOST_REQUIRE(r.ok());
    return *r;
  };
  auto dependent = [&](const std::string& n, const json& o, bool hold = false) {
    json d = configmap(n);
    d["metadata"]["ownerReferences"] = json::array({{{"apiVersion", "v1"},
                                                     {"kind", "ConfigMap"},
                                                     {"name", o["metadata"]["name"]},
                                                     {"uid", o["metadata"]["uid"]},
                                                     {"blockOwnerDeletion", true}}});
    if (hold) d["metadata"]["finalizers"] = {"test/hold"};
    BOOST_REQUIRE(c->create(resources::configmaps, "default", d).ok());
  };
  auto exists = [&](const std::string& n) { return c->get(resources::configmaps, "default", n).ok(); };

  json o1 = owner("bg-owner");
  dependent("bg-dep1", o1);
  dependent("bg-dep2", o1);
  delete_options bg;
  bg.propagation_policy = "Background";
  BOOST_REQUIRE(c->remove(resources::configmaps, "default", "bg-owner", bg).ok());
  BOOST_TEST(!exists("bg-owner"));
  BOOST_TEST(!exists("bg-dep1"));
  BOOST_TEST(!exists("bg-dep2"));

  json o2 = owner("or-owner");
  dependent("or-dep", o2);
  delete_options orphan;
  orphan.propagation_policy = "Orphan";
  BOOST_REQUIRE(c->remove(resources::configmaps, "default", "or-owner", orphan).ok());
  BOOST_TEST(!exists("or-owner"));
  auto kept = c->get(resources::configmaps, "default", "or-dep");
  BOOST_REQUIRE(kept.ok());
  BOOST_TEST(!(*kept)["metadata"].contains("ownerReferences"));

  json o3 = owner("fg-owner");
  dependent("fg-dep", o3, true);
  delete_options fg;
  fg.propagation_policy = "Foreground";
  BOOST_REQUIRE(c->remove(resources::configmaps, "default", "fg-owner", fg).ok());
  auto waiting = c->get(resources::configmaps, "default", "fg-owner");
  BOOST_REQUIRE(waiting.ok());  // held until its dependent is gone
  BOOST_TEST((*waiting)["metadata"]["finalizers"].dump().find("foregroundDeletion") != std::string::npos);
  auto dep = c->get(resources::configmaps, "default", "fg-dep");
  BOOST_REQUIRE(dep.ok());
  BOOST_TEST((*dep)["metadata"].contains("deletionTimestamp"));
  BOOST_REQUIRE(c->merge_patch(resources::configmaps, "default", "fg-dep",
                               {{"metadata", {{"finalizers", nullptr}}}}).ok());
  BOOST_TEST(!exists("fg-dep"));
  BOOST_TEST(!exists("fg-owner"));
}

BOOST_AUTO_TEST_CASE(dropped_watch_resumes_without_missed_events) {
  create_mfg("w0");
  create_mfg("w1");
  view_runner vr{*c, mfg_ref};
  BOOST_REQUIRE(vr.converges(server_view(*c, mfg_ref)));
  constexpr int writes = 30;
  for (int i = 0; i < writes; ++i) {
    auto r = c->merge_patch(mfg_ref, "default", "w" + std::to_string(i % 2),
                            {{"spec", {{"note", "n" + std::to_string(i)}}}});
    BOOST_REQUIRE(r.ok());
    if (i % 5 == 4) {
      // Let the reflector catch up on some, then cut every stream.
      std::this_thread::sleep_for(20ms);
      sim.drop_watches();
    }
  }
  BOOST_REQUIRE(vr.converges(server_view(*c, mfg_ref)));
  std::set<std::string> notes;
  {
    std::lock_guard lock{vr.m};
    for (auto& e : vr.events) notes.insert(e.object["spec"].value("note", std::string{}));
  }
  for (int i = 0; i < writes; ++i) BOOST_TEST(notes.count("n" + std::to_string(i)) == 1u, "missed n" << i);
  BOOST_TEST(vr.refl.stats().watches.load() > 1u);
  BOOST_TEST(vr.refl.stats().gone.load() == 0u);
  BOOST_TEST(vr.refl.stats().lists.load() == 1u);  // resumed, never relisted
}

BOOST_AUTO_TEST_CASE(gone_relists_and_misses_nothing) {
  create_mfg("a");
  create_mfg("b");
  create_mfg("c");
  view_runner vr{*c, mfg_ref};
  BOOST_REQUIRE(vr.converges(server_view(*c, mfg_ref)));
  for (int i = 0; i < 500 && sim.open_watches() == 0; ++i) std::this_thread::sleep_for(10ms);
  BOOST_REQUIRE(sim.open_watches() == 1u);  // the reflector's stream, about to be cut
  // Keep the reflector away while the world changes and history is compacted.
  sim.set_failure_rule([](const std::string& method, const std::string& path, const std::string&) {
    return method == "GET" && path.find("/mysqlfailovergroups") != std::string::npos ? 503 : 0;
  });
  sim.drop_watches();
  // The changes must not reach the old stream: wait until it is really closed.
  for (int i = 0; i < 200 && sim.open_watches() > 0; ++i) std::this_thread::sleep_for(10ms);
  BOOST_REQUIRE(sim.open_watches() == 0u);
  BOOST_REQUIRE(c->merge_patch(mfg_ref, "default", "a", {{"spec", {{"note", "changed"}}}}).ok());
  BOOST_REQUIRE(c->remove(mfg_ref, "default", "b").ok());
  create_mfg("d");
  sim.compact();
  sim.set_failure_rule({});
  const auto expected = server_view(*c, mfg_ref);
  BOOST_REQUIRE(vr.converges(expected));
  BOOST_TEST(vr.refl.stats().gone.load() >= 1u);
  std::lock_guard lock{vr.m};
  BOOST_TEST(vr.view.count("b") == 0u);
  BOOST_TEST(vr.view["a"]["spec"]["note"] == "changed");
  BOOST_TEST(vr.view.count("d") == 1u);
}

BOOST_AUTO_TEST_CASE(watch_reports_410_and_bookmarks) {
  json o = create_mfg("bm");
  std::atomic<bool> stop{false};
  std::vector<std::string> types;
  watch_options wo;
  wo.resource_version = rv(o);
  wo.allow_bookmarks = true;
  wo.server_timeout = 2s;
  std::thread writer([&] {
    std::this_thread::sleep_for(100ms);
    c->merge_patch(mfg_ref, "default", "bm", {{"spec", {{"note", "x"}}}});
  });
  auto out = c->watch(mfg_ref, "default", wo, [&](const watch_event& e) {
    types.push_back(e.type);
    return !(e.type == "BOOKMARK" && std::count(types.begin(), types.end(), "MODIFIED") > 0);
  }, &stop);
  writer.join();
  BOOST_TEST((out.how == watch_outcome::end::stopped));
  BOOST_TEST(std::count(types.begin(), types.end(), "MODIFIED") == 1);
  BOOST_TEST(std::count(types.begin(), types.end(), "BOOKMARK") >= 1);
  sim.compact();
  auto gone = c->watch(mfg_ref, "default", wo, [](const watch_event&) { return true; });
  BOOST_TEST((gone.how == watch_outcome::end::gone));
  BOOST_TEST(gone.error.status == 410);
}

BOOST_AUTO_TEST_CASE(events_are_deduplicated) {
  json about = create_mfg("ev");
  auto fake_now = std::chrono::system_clock::now();
  event_recorder rec{*c, {"bloodraven", "pod-a", std::chrono::seconds{600}}, [&] { return fake_now; }};
  for (int i = 0; i < 3; ++i) BOOST_REQUIRE(rec.record(ref_of(about), "Warning", "FailoverBlocked", "no candidate").ok());
  BOOST_REQUIRE(rec.record(ref_of(about), "Warning", "FailoverBlocked", "other message").ok());
  auto count_events = [&] {
    auto l = c->list_all(resources::events, "default");
    BOOST_REQUIRE(l.ok());
    std::map<std::string, int> by_message;
    for (auto& e : (*l)["items"]) by_message[e["message"]] += e["count"].get<int>() * 100 + 1;
    return by_message;
  };
  auto m = count_events();
  BOOST_TEST(m["no candidate"] == 301);  // one Event object with count 3
  BOOST_TEST(m["other message"] == 101);
  fake_now += std::chrono::seconds{601};  // outside the window: a new Event
  BOOST_REQUIRE(rec.record(ref_of(about), "Warning", "FailoverBlocked", "no candidate").ok());
  BOOST_TEST(count_events()["no candidate"] == 402);
}

BOOST_AUTO_TEST_CASE(every_call_has_a_deadline) {
  // A listener that never answers: the call must end at its deadline with a Timeout error.
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  BOOST_REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  BOOST_REQUIRE(::listen(fd, 8) == 0);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  config cfg;
  cfg.server = "http://127.0.0.1:" + std::to_string(ntohs(a.sin_port));
  client slow{cfg};
  const auto t0 = std::chrono::steady_clock::now();
  auto r = slow.get(mfg_ref, "default", "x", 300ms);
  const auto took = std::chrono::steady_clock::now() - t0;
  ::close(fd);
  BOOST_REQUIRE(!r.ok());
  BOOST_TEST(r.error().transport());
  BOOST_TEST(r.error().reason == "Timeout");
  BOOST_TEST(took < 5s);  // generous safety bound only
}

BOOST_AUTO_TEST_CASE(write_log_attributes_writes_by_identity) {
  client_options co;
  co.identity = "pod-a";
  client ident{sim_config(sim), co};
  BOOST_REQUIRE(ident.create(mfg_ref, "default", mfg("wl")).ok());
  BOOST_REQUIRE(c->merge_patch(mfg_ref, "default", "wl", {{"spec", {{"note", "x"}}}}).ok());
  auto w = sim.writes();
  std::vector<std::pair<std::string, std::string>> mine;
  for (auto& r : w)
    if (r.path.find("/mysqlfailovergroups") != std::string::npos) mine.emplace_back(r.verb, r.identity);
  BOOST_REQUIRE(mine.size() == 2u);
  BOOST_TEST(mine[0].first == "POST");
  BOOST_TEST(mine[0].second == "pod-a");
  BOOST_TEST(mine[1].first == "PATCH");
  BOOST_TEST(mine[1].second == "");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(kube_config)

BOOST_AUTO_TEST_CASE(kubeconfig_current_context_token_and_tls_fields) {
  temp_dir d;
  std::ofstream{d.path / "ca.crt"} << "PEM";
  std::ofstream{d.path / "config"} << R"(apiVersion: v1
kind: Config
current-context: two
clusters:
- name: c1
  cluster: {server: "https://one:6443"}
- name: c2
  cluster:
    server: https://two:6443
    certificate-authority: ca.crt
    insecure-skip-tls-verify: true
contexts:
- name: one
  context: {cluster: c1, user: u1}
- name: two
  context: {cluster: c2, user: u2, namespace: ops}
users:
- name: u1
  user: {token: t1}
- name: u2
  user:
    token: t2
    client-certificate-data: aGVsbG8=
)";
  auto cfg = load_kubeconfig((d.path / "config").string());
  BOOST_REQUIRE_MESSAGE(cfg.ok(), (cfg.ok() ? std::string{} : cfg.error().describe()));
  BOOST_TEST(cfg->server == "https://two:6443");
  BOOST_TEST(cfg->ns == "ops");
  BOOST_TEST(cfg->ca_file == (d.path / "ca.crt").string());
  BOOST_TEST(cfg->insecure_skip_tls_verify);
  BOOST_TEST(cfg->client_cert_data == "hello");
  BOOST_TEST(cfg->token->token() == "t2");
  auto one = load_kubeconfig((d.path / "config").string(), "one");
  BOOST_REQUIRE(one.ok());
  BOOST_TEST(one->server == "https://one:6443");
  BOOST_TEST(one->token->token() == "t1");
  BOOST_TEST(!load_kubeconfig((d.path / "config").string(), "nope").ok());
  BOOST_TEST(!load_kubeconfig((d.path / "absent").string()).ok());
}

BOOST_AUTO_TEST_CASE(in_cluster_token_is_reread_when_rotated) {
  temp_dir d;
  in_cluster_paths p;
  p.token = (d.path / "token").string();
  p.ca = (d.path / "ca.crt").string();
  p.ns = (d.path / "namespace").string();
  std::ofstream{p.token} << "first\n";
  std::ofstream{p.ns} << "bloodraven-system";
  ::setenv("KUBERNETES_SERVICE_HOST", "fd00::1", 1);
  ::setenv("KUBERNETES_SERVICE_PORT", "443", 1);
  auto cfg = in_cluster_config(p);
  ::unsetenv("KUBERNETES_SERVICE_HOST");
  ::unsetenv("KUBERNETES_SERVICE_PORT");
  BOOST_REQUIRE(cfg.ok());
  BOOST_TEST(cfg->server == "https://[fd00::1]:443");
  BOOST_TEST(cfg->ns == "bloodraven-system");
  BOOST_TEST(cfg->ca_file == p.ca);
  BOOST_TEST(cfg->token->token() == "first");
  // Rotation: a fresh token source with no recheck delay sees the new content.
  auto src = token_source::file(p.token, std::chrono::milliseconds{0});
  BOOST_TEST(src->token() == "first");
  std::ofstream{p.token, std::ios::trunc} << "second-longer\n";
  BOOST_TEST(src->token() == "second-longer");
  BOOST_TEST(src->reads() == 2u);
  BOOST_TEST(src->token() == "second-longer");
  BOOST_TEST(src->reads() == 2u);  // unchanged file: not re-read
}

BOOST_AUTO_TEST_SUITE_END()
