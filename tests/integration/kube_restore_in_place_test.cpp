// spec.restoreInPlace in Kubernetes mode on the API SIMULATOR (issue 21): the group source (its
// coordinators over a MOCK site_io: no MySQL runs here), the reconciler (pod labels through the
// router) and the restore controller run in this process under the chart's RBAC; a kubelet
// SIMULATION makes the pods; the test plays the Job controller (the Job's status, its pod's
// termination message) as a real cluster would. Shown: Preflight -> Fencing -> Restoring ->
// Resuming -> Succeeded with the coordinator's durable freeze, the target fenced and its primary
// label gone while it loads and back after, the Job created once across an operator restart in
// the middle (the same token never runs twice), the other sites restore-pending after the lift
// (status, no -replicas label) until each reclone on the restore's token succeeded,
// bloodraven_restore_* with restore_kind in_place; a failed Job: Failed, the Job kept, the group
// stays frozen and fenced, nothing retried; then lifted by the restore-lift annotation (what
// `kubectl bloodraven restore lift` sets): a stays fenced, every site pending, no promotion; a
// newer confirm runs its own Job (the failed one kept) and restores a.
#include <boost/test/unit_test.hpp>

#include <thread>

#include "actors/operator/group/durable_state_json.hpp"
#include "actors/operator/kube/core/kube_state_store.hpp"
#include "actors/operator/kube/restore/restore_in_place.hpp"
#include "config/rfc3339.hpp"
#include "io/metrics/metrics.hpp"
#include "tests/integration/kube_restore_fixture.hpp"
#include "tests/integration/kubelet_sim.hpp"
#include "tests/support/eventually.hpp"

using namespace br;
using namespace br::test::restore_fixture_detail;
using namespace std::chrono_literals;
using br::test::eventually;

namespace {

const std::string T1 = "2026-11-26T15:00:00Z", T2 = "2026-11-26T16:00:00Z";
const std::string restored = "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-20";  // the backup's set

struct in_place_fixture : restore_fixture {
  std::unique_ptr<test::kubelet_sim> kubelet =
      std::make_unique<test::kubelet_sim>(cluster.client("kubelet-sim"), ns);

  in_place_fixture() { if (std::getenv("BR_TEST_LOG")) log::set_level(log::level::info); }
  ~in_place_fixture() { kubelet->stop(); }

  /// A running group: a writable with the data, the others replicating from it; the operator
  /// (with its reconciler and the kubelet simulation) adopts a.
  void running_group(const std::string& g) {
    mock->set(g + "-a", gtid, true);
    for (const char* s : {"-b", "-c"}) {
      mock->set(g + s, gtid, false);
      std::lock_guard l{mock->m};
      mock->channel.insert(g + s);
    }
    succeeded_backup("nightly-1", g);
    must(cluster.create(kube::resources::mysqlfailovergroups, ns,
                        group_object(g, "replication", {{"user", "repl"}, {"password", "replpw"}},
                                     {"a", "b", "c"})));
    kubelet->start();
    start({g}, true);
    // Adopted, a seen writable (the freeze is refused otherwise), its pod labelled primary.
    auto a_writable = [&] {
      for (const auto& s : status(g).value("sites", json::array()))
        if (s.value("name", "") == "a") return s.value("state", "") == "writable";
      return false;
    };
    BOOST_TEST_REQUIRE(eventually([&] {
      return status(g).value("activeSite", "") == "a" && a_writable() && role(g, "a") == "primary";
    }, 30s), status(g).dump());
  }

  /// spec.restoreInPlace set (by a person, as with kubectl).
  void request_restore(const std::string& g, const std::string& token) {
    auto r = c->merge_patch(kube::resources::mysqlfailovergroups, ns, g,
                            {{"spec", {{"restoreInPlace", {{"confirm", token},
                                                           {"source", {{"mysqlBackupRef", {{"name", "nightly-1"}}}}}}}}}});
    BOOST_TEST_REQUIRE(r.ok(), why(r));
  }

  json in_place(const std::string& g) { return status(g).value("restoreInPlace", json::object()); }
  std::string phase(const std::string& g) { return in_place(g).value("phase", ""); }

  /// The shipstream.io/role label of the site's pod ("" when no pod).
  std::string role(const std::string& g, const std::string& s) {
    kube::list_options lo;
    lo.label_selector = "shipstream.io/failover-group=" + g + ",shipstream.io/site=" + s;
    auto pods = c->list(kube::resources::pods, ns, lo);
    if (!pods || (*pods)["items"].empty()) return "";
    return (*pods)["items"][0]["metadata"]["labels"].value("shipstream.io/role", "");
  }

  /// The coordinator's durable record, as its state ConfigMap holds it.
  restore_freeze_record freeze(const std::string& g) {
    auto cm = get(kube::resources::configmaps, state_configmap_name(g));
    if (!cm.is_object()) return {};
    auto d = durable_state_from_json(json::parse(cm["data"].value(state_configmap_key, std::string("{}"))));
    return d ? d->restore_freeze : restore_freeze_record{};
  }

  std::string job_uid(const std::string& job) {
    auto j = get(res::jobs, job);
    return j.is_object() ? j["metadata"].value("uid", "") : "";
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(kube_restore_in_place, in_place_fixture)

BOOST_AUTO_TEST_CASE(the_phases_through_an_operator_restart_then_the_others_recloned) {
  const std::string g = "ip", job = restore_ctl::replace_job_name("ip", T1);
  running_group(g);
  const size_t promotions_before = mock->promotions();
  request_restore(g, T1);

  // Preflight stored with the token, the coordinator freezes the group (durably) and fences a;
  // the router drops a's primary label; then Restoring is stored and the Job created.
  BOOST_TEST_REQUIRE(eventually([&] { return phase(g) == "Restoring" && get(res::jobs, job).is_object(); }, 30s),
                     status(g).dump());
  auto rec = in_place(g);
  BOOST_TEST(rec["confirmTokenUsed"] == T1);
  BOOST_TEST(rec["targetSite"] == "a");
  BOOST_TEST(rec["scope"] == "full");
  BOOST_TEST(rec["jobName"] == job);
  BOOST_TEST(freeze(g).frozen);
  BOOST_TEST(freeze(g).token == T1);
  BOOST_TEST(!mock->is_writable(g + "-a"));  // fenced before the Job existed
  BOOST_TEST(role(g, "a") == "replica");
  {
    std::lock_guard l{mock->m};  // b and c stopped replicating from a: it serves no replica
    BOOST_TEST(mock->channel.empty());
  }
  BOOST_TEST(!events(g, "RestoreInPlaceFrozen").empty());
  BOOST_TEST(events(g, "RestoreInPlaceStarted").size() == 1u);
  const json container = get(res::jobs, job)["spec"]["template"]["spec"]["containers"][0];
  BOOST_TEST(container["args"] ==
             json::array({"restore", "--name", "nightly-1", "--target", "mysql-ip-a.default.svc:3306",
                          "--creds-dir", "/run/bloodraven/mysql-creds", "--user", "root", "--result-file",
                          "/dev/termination-log", "--replace"}));
  const std::string uid = job_uid(job);

  // The operator restarts while the Job runs: the coordinator loads the freeze back, the
  // controller finds its phase and the Job; nothing is asked or created twice.
  stop_operator();
  start_operator(true);
  start_controller();
  std::this_thread::sleep_for(3s);  // many passes and polls
  BOOST_TEST(phase(g) == "Restoring");
  BOOST_TEST(job_uid(job) == uid);
  BOOST_TEST(events(g, "RestoreInPlaceStarted").size() == 1u);
  BOOST_TEST(freeze(g).frozen);
  BOOST_TEST(!mock->is_writable(g + "-a"));
  BOOST_TEST(role(g, "a") == "replica");
  BOOST_TEST(mock->promotions() == promotions_before);

  // The Job succeeds: the site holds the backup's set (fenced, as `restore --replace` leaves it).
  mock->set(g + "-a", restored, false);
  // The result as `bloodraven restore --replace` writes it, completed now (whole seconds).
  const std::string done = config::format_rfc3339(
      std::chrono::time_point_cast<std::chrono::seconds>(std::chrono::system_clock::now()));
  finish_job(g, job, true,
             R"({"name":"nightly-1","gtidExecuted":")" + restored +
                 R"(","sourceSizeBytes":1048576,"completionTime":")" + done + R"(","dropped":["app"]})",
             "restore-in-place");
  // Resuming: lift (the coordinator unfences a through the re-assert path), Job deleted;
  // Succeeded: a primary again, its label back.
  BOOST_TEST_REQUIRE(eventually([&] { return phase(g) == "Succeeded"; }, 30s), status(g).dump());
  BOOST_TEST(!freeze(g).frozen);
  BOOST_TEST(freeze(g).token == T1);
  BOOST_TEST(eventually([&] { return get(res::jobs, job).is_null(); }, 10s));
  BOOST_TEST(mock->is_writable(g + "-a"));
  BOOST_TEST(eventually([&] { return role(g, "a") == "primary"; }, 20s));
  BOOST_TEST(!events(g, "RestoreInPlaceResumed").empty());
  BOOST_TEST(!events(g, "RestoreInPlaceSucceeded").empty());
  BOOST_TEST(status(g).value("activeSite", "") == "a");
  // H1: b and c were restore-pending from the lift (recorded with it, shown at Succeeded).
  BOOST_TEST(in_place(g).contains("pendingSites"), in_place(g).dump());

  // The other sites are recloned from a on the token's word, each once; each leaves the pending
  // list only when its reclone succeeded (M7), then status.restoreInPlace.pendingSites is empty.
  BOOST_TEST_REQUIRE(eventually([&] {
    auto r = in_place(g).value("reclones", json::object());
    return r.size() == 2u;
  }, 60s), status(g).dump());
  for (const char* s : {"b", "c"})
    BOOST_TEST(in_place(g)["reclones"].value(s, "").rfind("accepted: reclone of ", 0) == 0u, in_place(g).dump());
  BOOST_TEST(eventually([&] { return freeze(g).recloned.size() == 2u; }, 10s));
  BOOST_TEST(eventually([&] {
    return freeze(g).pending.empty() && in_place(g).value("pendingSites", json()) == json::array();
  }, 60s), in_place(g).dump());
  for (const auto& s : status(g).value("sites", json::array())) BOOST_TEST(!s.value("restorePending", false), s.dump());
  BOOST_TEST(eventually([&] {
    auto cl = mock->cloned();
    return std::count(cl.begin(), cl.end(), g + "-b") == 1 && std::count(cl.begin(), cl.end(), g + "-c") == 1;
  }, 60s), status(g).dump());
  BOOST_TEST(eventually([&] { return events(g, "RecoveryComplete").size() == 2u; }, 60s), status(g).dump());

  // bloodraven_restore_* with restore_kind in_place.
  const auto text = metrics::render_text();
  const std::string labels = R"({group="ip",namespace="default",restore_kind="in_place",target_site="a"})";
  BOOST_TEST(text.find("bloodraven_restore_last_source_size_bytes" + labels + " 1048576") != std::string::npos, text);
  BOOST_TEST(text.find("bloodraven_restore_duration_seconds_count" + labels + " 1") != std::string::npos, text);

  // The same token never runs again.
  std::this_thread::sleep_for(1s);
  BOOST_TEST(get(res::jobs, job).is_null());
  BOOST_TEST(events(g, "RestoreInPlaceStarted").size() == 1u);
}

BOOST_AUTO_TEST_CASE(a_failed_job_is_kept_and_the_group_stays_frozen) {
  const std::string g = "ipf", job = restore_ctl::replace_job_name("ipf", T1);
  running_group(g);
  const size_t promotions_before = mock->promotions();
  request_restore(g, T1);
  BOOST_TEST_REQUIRE(eventually([&] { return phase(g) == "Restoring" && get(res::jobs, job).is_object(); }, 30s),
                     status(g).dump());
  finish_job(g, job, false, R"({"name":"nightly-1","message":"the load failed: ERROR 1064 at line 12"})",
             "restore-in-place");
  BOOST_TEST_REQUIRE(eventually([&] { return phase(g) == "Failed"; }, 30s), status(g).dump());
  BOOST_TEST(in_place(g).value("message", "").find("ERROR 1064") != std::string::npos, in_place(g).dump());
  BOOST_TEST(eventually([&] { return !events(g, "RestoreInPlaceFailed").empty(); }, 10s));
  BOOST_TEST(events(g, "RestoreInPlaceFailed")[0]["type"] == "Warning");
  // Kept for its logs, not retried; the group frozen and a fenced, without its primary label.
  std::this_thread::sleep_for(3s);
  BOOST_TEST(get(res::jobs, job).is_object());
  BOOST_TEST(phase(g) == "Failed");
  BOOST_TEST(events(g, "RestoreInPlaceStarted").size() == 1u);
  BOOST_TEST(freeze(g).frozen);
  BOOST_TEST(!mock->is_writable(g + "-a"));
  BOOST_TEST(role(g, "a") == "replica");
  BOOST_TEST(mock->promotions() == promotions_before);
  BOOST_TEST(mock->cloned().empty());

  // M8: lifted by request (the annotation `kubectl bloodraven restore lift ipf` sets): the
  // freeze is gone, a stays fenced without its label, every site restore-pending, no promotion.
  auto r = c->merge_patch(kube::resources::mysqlfailovergroups, ns, g,
                          {{"metadata", {{"annotations", {{restore_ctl::restore_lift_annotation, T1}}}}}});
  BOOST_TEST_REQUIRE(r.ok(), why(r));
  BOOST_TEST_REQUIRE(eventually([&] { return !freeze(g).frozen; }, 30s), in_place(g).dump());
  BOOST_TEST(freeze(g).pending == (std::vector<std::string>{"a", "b", "c"}), boost::test_tools::per_element());
  BOOST_TEST(eventually([&] { return !events(g, "RestoreInPlaceAbandoned").empty(); }, 10s));
  BOOST_TEST(eventually([&] { return in_place(g).value("message", "").find("lifted by request") != std::string::npos; },
                        10s), in_place(g).dump());
  std::this_thread::sleep_for(2s);
  BOOST_TEST(!mock->is_writable(g + "-a"));
  BOOST_TEST(role(g, "a") == "replica");
  BOOST_TEST(mock->promotions() == promotions_before);
  BOOST_TEST(phase(g) == "Failed");
  // A newer confirm restores a again: its own Job, the failed one kept.
  const std::string job2 = restore_ctl::replace_job_name(g, T2);
  BOOST_TEST(job2 != job);
  request_restore(g, T2);
  BOOST_TEST_REQUIRE(eventually([&] { return phase(g) == "Restoring" && get(res::jobs, job2).is_object(); }, 30s),
                     status(g).dump());
  BOOST_TEST(get(res::jobs, job).is_object());
  mock->set(g + "-a", restored, false);
  finish_job(g, job2, true, R"({"name":"nightly-1","gtidExecuted":")" + restored + R"("})", "restore-in-place");
  BOOST_TEST_REQUIRE(eventually([&] { return phase(g) == "Succeeded"; }, 30s), status(g).dump());
  BOOST_TEST(eventually([&] { return mock->is_writable(g + "-a"); }, 20s));
  BOOST_TEST(eventually([&] { return role(g, "a") == "primary"; }, 20s));
  BOOST_TEST(eventually([&] { return freeze(g).pending.empty(); }, 60s), in_place(g).dump());
}

// H2: the freeze names its site. The restore's Preflight chose b, but a is the active site when the
// freeze is asked (as after a switchover between the two): the coordinator refuses it, nothing is
// frozen or fenced, no Job. Played by writing that Preflight record while the controller is stopped.
BOOST_AUTO_TEST_CASE(a_freeze_for_another_site_than_the_active_one_is_refused) {
  const std::string g = "ipw";
  running_group(g);
  caf::anon_send_exit(controller, caf::exit_reason::user_shutdown);
  self->wait_for(controller);
  controller = nullptr;
  auto r = c->merge_patch(kube::resources::mysqlfailovergroups, ns, g,
                          {{"status", {{"restoreInPlace", {{"phase", "Preflight"}, {"confirmTokenUsed", T1},
                                                           {"targetSite", "b"}, {"scope", "full"},
                                                           {"startTime", T1}}}}}},
                          "status");
  BOOST_TEST_REQUIRE(r.ok(), why(r));
  request_restore(g, T1);
  start_controller();
  BOOST_TEST_REQUIRE(eventually([&] { return phase(g) == "Failed"; }, 30s), status(g).dump());
  BOOST_TEST(in_place(g).value("message", "").find("the restore targets b but the active site is a") !=
                 std::string::npos,
             in_place(g).dump());
  std::this_thread::sleep_for(1s);
  BOOST_TEST(!freeze(g).frozen);
  BOOST_TEST(freeze(g).token.empty());  // never recorded: a newer confirm may run
  BOOST_TEST(mock->is_writable(g + "-a"));
  BOOST_TEST(role(g, "a") == "primary");
  BOOST_TEST(get(res::jobs, restore_ctl::replace_job_name(g, T1)).is_null());
}

// H3: b's STOP REPLICA keeps failing (it goes on replicating from a): STOP REPLICA is sent again on
// every pass, and at the deadline (4 s here, 5 minutes by default) the restore ends Failed naming
// b, the freeze cancelled (nothing was loaded): a writable and labelled again, nobody pending.
BOOST_AUTO_TEST_CASE(fencing_that_never_completes_fails_at_its_deadline_and_cancels_the_freeze) {
  const std::string g = "ipd";
  fencing_deadline = 4s;
  {
    std::lock_guard l{mock->m};
    mock->stuck.insert(g + "-b");
  }
  running_group(g);
  request_restore(g, T1);
  BOOST_TEST_REQUIRE(eventually([&] { return phase(g) == "Fencing"; }, 30s), status(g).dump());
  BOOST_TEST_REQUIRE(eventually([&] { return phase(g) == "Failed"; }, 30s), status(g).dump());
  const std::string m = in_place(g).value("message", "");
  BOOST_TEST(m.find("Fencing did not complete within 4 s") != std::string::npos, m);
  BOOST_TEST(m.find("b not seen stopped") != std::string::npos, m);
  BOOST_TEST(mock->stops_of(g + "-b") > 2, mock->stops_of(g + "-b"));  // asked again, not once
  BOOST_TEST(eventually([&] { return !freeze(g).frozen; }, 10s));
  BOOST_TEST(freeze(g).pending.empty());
  BOOST_TEST(eventually([&] { return mock->is_writable(g + "-a"); }, 20s));
  BOOST_TEST(eventually([&] { return role(g, "a") == "primary"; }, 20s));
  BOOST_TEST(get(res::jobs, restore_ctl::replace_job_name(g, T1)).is_null());
}

BOOST_AUTO_TEST_SUITE_END()
