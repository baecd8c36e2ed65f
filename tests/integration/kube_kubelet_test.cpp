// The process kubelet (tests/support/process_kubelet) on a rendered group: the API simulator holds
// what config/render produces for a two-site group (plus its generated Secrets); the kubelet runs
// the pods for real: the init container (reconciler version 6) and mysqld 9.7 from the sandbox
// chroot, the real bloodraven-sidecar, each pod in its own network and mount namespace. No
// operator runs here: the test plays its part (pod labels, lifting the fence) where needed. In
// order: a missing Secret key (the init container's CreateContainerConfigError), the rendered
// fenced my.cnf on empty PVCs (initialised by the init container: root and the accounts, no GTIDs,
// booted super_read_only), the sidecar answering on its pod IP, Service names resolving and routing
// to the labelled pod, kill -9 of mysqld (restartCount 1, data kept), a lost PVC (the next pod is
// initialised empty), and a rollout (new generation: old pod stopped, new one started on the data).
#include <boost/test/unit_test.hpp>

#include <arpa/inet.h>
#include <netdb.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <thread>

#include "actors/operator/kube/core/generated_credentials.hpp"
#include "config/render/group_objects.hpp"
#include "config/render/names.hpp"
#include "io/codec/base64.hpp"
#include "tests/integration/kube_kubelet_rendered_fixture.hpp"
#include "tests/support/process_kubelet/command.hpp"

using namespace br;
using namespace std::chrono_literals;
using nlohmann::json;
using namespace br::test::kubelet_rendered;

namespace {

const std::string dep_a = "mysql-kt-a", dep_b = "mysql-kt-b";

json replication_group_document() {
  json doc = group_document();
  doc["spec"]["replication"] = {{"user", "repl"}, {"password", "replpw"}, {"tls", true}};
  return doc;
}

std::string http_status_line(const std::string& ip, int port, const std::string& path) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  timeval tv{2, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  ::inet_pton(AF_INET, ip.c_str(), &a.sin_addr);
  std::string got;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) {
    std::string req = "GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    if (::send(fd, req.data(), req.size(), MSG_NOSIGNAL) > 0) {
      char buf[512];
      ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n > 0) got.assign(buf, static_cast<size_t>(n));
    }
  }
  ::close(fd);
  return got.substr(0, got.find("\r\n"));
}

/// getaddrinfo from this (the test's) thread: what the operator in a test process would get.
std::string resolve(const std::string& name) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  addrinfo* res = nullptr;
  if (::getaddrinfo(name.c_str(), nullptr, &hints, &res) != 0 || !res) return "";
  char buf[INET_ADDRSTRLEN] = {};
  ::inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(res->ai_addr)->sin_addr, buf, sizeof buf);
  ::freeaddrinfo(res);
  return buf;
}

struct kubelet_fixture : rendered_pods_on_kubelet {
  config::failover_group g;

  ~kubelet_fixture() {
    if (boost::unit_test::framework::current_test_case().p_name.get().empty()) return;
    show_logs({dep_a, dep_b});
  }

  std::optional<kl::container_view> mysql(const std::string& d) { return kubelet->container(d, "mysql"); }

  std::string describe(const std::string& d) {
    auto m = mysql(d);
    return "pod " + kubelet->pod_name(d) + " ip " + kubelet->pod_ip(d) + " mysql " +
           (m ? std::to_string(m->pid) + " " + m->waiting_reason + ": " + m->waiting_message : "none") +
           "; kubelet error: " + kubelet->error();
  }

  void set_role(const std::string& deployment, const std::string& role) {
    const auto pod = kubelet->pod_name(deployment);
    BOOST_TEST_REQUIRE(!pod.empty());
    auto r = c->merge_patch(kube::resources::pods, ns, pod,
                            {{"metadata", {{"labels", {{std::string{render::label_role}, role}}}}}});
    BOOST_TEST_REQUIRE(r.ok(), (r.ok() ? "" : r.error().describe()));
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(kube_kubelet, kubelet_fixture)

BOOST_AUTO_TEST_CASE(rendered_pods_run_for_real) {
  start_kubelet();

  // -- the group, the rendered objects, the generated Secrets ----------------------------------
  create_crd();
  must_create(br::kube_sim::test::mfg_ref, replication_group_document());
  g = parsed_group(replication_group_document(), get(br::kube_sim::test::mfg_ref, group)["metadata"].value("uid", ""));
  auto rendered = render::render_group(g, {});
  BOOST_TEST_REQUIRE(rendered.ok());
  auto secret = generated_operator_secret(g, random_password);
  creds = secret_data(secret);
  bool added = false;
  must_create(kube::resources::secrets, generated_keys_secret(g, completed_keys(g, {}, added)));
  // (1) first without MYSQL_ROOT_PASSWORD: the init container cannot be configured.
  json partial = secret;
  partial["data"].erase("MYSQL_ROOT_PASSWORD");
  must_create(kube::resources::secrets, partial);
  for (const auto& obj : rendered.objects) {
    const auto kind = obj.value("kind", "");
    if (kind == "Deployment") must_create(kube::resources::deployments, obj);
    else if (kind == "ConfigMap") must_create(kube::resources::configmaps, obj);
    else if (kind == "PersistentVolumeClaim") must_create(kube::resources::pvcs, obj);
    else if (kind == "Service") must_create(kube::resources::services, obj);
    else if (kind == "Secret") must_create(kube::resources::secrets, obj);
  }
  BOOST_TEST_REQUIRE(eventually([&] {
    auto m = kubelet->container(dep_b, "init-datadir");
    return m && m->waiting_reason == "CreateContainerConfigError";
  }, 30s), "no CreateContainerConfigError for the missing key: " << describe(dep_b));
  BOOST_TEST(kubelet->container(dep_b, "init-datadir")->waiting_message.find("couldn't find key MYSQL_ROOT_PASSWORD") != std::string::npos,
             kubelet->container(dep_b, "init-datadir")->waiting_message);
  BOOST_TEST(mysql(dep_b)->pid == -1);
  BOOST_TEST(mysql(dep_b)->waiting_reason == "PodInitializing");
  {
    auto pod = get(kube::resources::pods, kubelet->pod_name(dep_b));
    BOOST_TEST(pod["status"]["initContainerStatuses"][0]["state"]["waiting"].value("reason", "") ==
               "CreateContainerConfigError");
    BOOST_TEST(pod["status"].value("phase", "") == "Pending");
    BOOST_TEST(pod["status"].value("podIP", "") == kubelet->pod_ip(dep_b));
  }
  {
    auto full = get(kube::resources::secrets, group + "-operator");
    full["data"] = secret["data"];
    BOOST_TEST_REQUIRE(c->update(kube::resources::secrets, full).ok());
  }

  // -- (2) the rendered, fenced my.cnf on empty PVCs: initialised by the init container --------
  const auto ip_a = kubelet->pod_ip(dep_a), ip_b = kubelet->pod_ip(dep_b);
  for (const auto& [d, ip, id] : {std::tuple{dep_a, ip_a, "101"}, std::tuple{dep_b, ip_b, "102"}}) {
    BOOST_TEST_CONTEXT(d) {
      BOOST_TEST_REQUIRE(eventually([&] { return scalar(ip, "SELECT @@server_id") == id; }, 180s),
                         d << "'s mysqld never answered on " << ip << ": " << describe(d));
      BOOST_TEST(kubelet->container_log(d, "init-datadir").find("init-datadir: initialised") != std::string::npos,
                 kubelet->container_log(d, "init-datadir"));
      BOOST_TEST(scalar(ip, "SELECT CONCAT(@@read_only, @@super_read_only)") == "11");  // booted fenced
      BOOST_TEST(scalar(ip, "SELECT @@gtid_executed") == "");  // no transactions of its own
      for (const char* user : {"MYSQL_REPLICATION_USER", "MYSQL_MONITOR_USER", "username"})
        BOOST_TEST(scalar(ip, "SELECT COUNT(*) FROM mysql.user WHERE user='" + creds[user] + "' AND host='%'") == "1", user);
      BOOST_TEST(mysql(d)->restarts == 0);  // the first start did not fail
    }
  }
  BOOST_TEST(scalar(ip_b, "SELECT @@datadir") == "/var/lib/mysql/");
  BOOST_TEST(scalar(ip_b, "SELECT @@gtid_mode") == "ON");
  BOOST_TEST(scalar(ip_b, "SELECT @@log_bin_basename") == "/var/lib/mysql/mysql-bin");
  BOOST_TEST(std::filesystem::exists(kubelet->pvc_dir("mysql-kt-b-data") + "/mysql-bin.index"));
  BOOST_TEST(eventually([&] {
    auto pod = get(kube::resources::pods, kubelet->pod_name(dep_b));
    bool ready = false, initialized = false;
    for (const auto& cnd : pod["status"].value("conditions", json::array())) {
      if (cnd.value("type", "") == "Ready") ready = cnd.value("status", "") == "True";
      if (cnd.value("type", "") == "Initialized") initialized = cnd.value("status", "") == "True";
    }
    return ready && initialized &&
           pod["status"]["initContainerStatuses"][0]["state"]["terminated"].value("reason", "") == "Completed";
  }, 60s), "b's pod is not Initialized and Ready");

  // -- (3) the sidecar: the real binary, on the pod's IP ----------------------------------------
  BOOST_TEST(eventually([&] { return http_status_line(ip_b, render::sidecar_health_port, "/livez").find(" 200") != std::string::npos; }, 60s),
             "sidecar /livez on " << ip_b << ": " << http_status_line(ip_b, render::sidecar_health_port, "/livez"));
  BOOST_TEST(kubelet->container_log(dep_b, "sidecar").find("MY_SITE") == std::string::npos);  // env, not args

  // -- (4) Services: names resolve here; -primary follows the role label ---------------------
  const auto svc_b = resolve("mysql-kt-b.default.svc.cluster.local");
  BOOST_TEST(!svc_b.empty());
  BOOST_TEST(svc_b == kubelet->service_ip("mysql-kt-b"));
  BOOST_TEST(eventually([&] { return scalar("mysql-kt-b.default.svc.cluster.local", "SELECT @@server_id") == "102"; }, 30s));
  const std::string primary = "mysql-kt-primary.default.svc.cluster.local";
  BOOST_TEST(resolve(primary) == kubelet->service_ip("mysql-kt-primary"));
  BOOST_TEST(scalar(primary, "SELECT 1") == "");  // no pod is labelled primary yet
  set_role(dep_b, "primary");
  BOOST_TEST(eventually([&] { return scalar(primary, "SELECT @@server_id") == "102"; }, 30s),
             "-primary does not route to b");
  scalar(primary, "SET GLOBAL super_read_only=OFF");  // the operator's promotion, played here
  BOOST_TEST(scalar(primary, "CREATE DATABASE kubelet_marker") == "");
  BOOST_TEST(scalar(ip_b, "SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name='kubelet_marker'") == "1");

  // -- (5) kill -9 of mysqld: the container restarts, the data stays --------------------------
  const auto before = *mysql(dep_b);
  BOOST_TEST_REQUIRE(before.pid > 0);
  BOOST_TEST(before.restarts == 0);
  ::kill(before.pid, SIGKILL);
  BOOST_TEST(eventually([&] { auto m = mysql(dep_b); return m && m->restarts == 1 && m->pid > 0 && m->pid != before.pid; }, 30s));
  BOOST_TEST(eventually([&] {
    return scalar(ip_b, "SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name='kubelet_marker'") == "1";
  }, 90s), "b did not come back with its data after kill -9");
  BOOST_TEST(scalar(ip_b, "SELECT @@super_read_only") == "1");  // a restart boots fenced again
  BOOST_TEST(get(kube::resources::pods, kubelet->pod_name(dep_b))["status"]["containerStatuses"][0].value("restartCount", 0) == 1);

  // -- (6) a lost PVC: the next pod's init container initialises an empty server --------------
  const auto old_pod = kubelet->pod_name(dep_b);
  const auto old_pid = mysql(dep_b)->pid;
  kubelet->lose_pvc("mysql-kt-b-data");
  BOOST_TEST(::kill(old_pid, 0) != 0);  // the old pod's mysqld is gone
  BOOST_TEST_REQUIRE(eventually([&] { return kubelet->pod_name(dep_b) != old_pod && !kubelet->pod_name(dep_b).empty(); }, 60s));
  BOOST_TEST(eventually([&] {
    return scalar(kubelet->pod_ip(dep_b), "SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name='kubelet_marker'") == "0";
  }, 180s), "no empty server after the PVC was lost: " << describe(dep_b));
  BOOST_TEST(kubelet->container_log(dep_b, "init-datadir").find("init-datadir: initialised") != std::string::npos);
  BOOST_TEST(scalar(kubelet->pod_ip(dep_b), "SELECT COUNT(*) FROM mysql.user WHERE user='" + creds["MYSQL_REPLICATION_USER"] + "'") == "1");
  BOOST_TEST(scalar(kubelet->pod_ip(dep_b), "SELECT @@super_read_only") == "1");

  // -- (7) a rollout (new generation): the new pod starts on a's data, not initialised again ---
  const auto old_a = kubelet->pod_name(dep_a);
  scalar(ip_a, "SET GLOBAL super_read_only=OFF");
  scalar(ip_a, "CREATE DATABASE kubelet_a");
  scalar(ip_a, "SET GLOBAL super_read_only=ON");
  {
    auto d = get(kube::resources::deployments, dep_a);
    d["spec"]["template"]["metadata"]["annotations"]["kubelet-test/rollout"] = "1";
    BOOST_TEST_REQUIRE(c->update(kube::resources::deployments, d).ok());
  }
  BOOST_TEST(eventually([&] { return kubelet->pod_name(dep_a) != old_a && !kubelet->pod_name(dep_a).empty(); }, 60s));
  BOOST_TEST(eventually([&] {
    return scalar(kubelet->pod_ip(dep_a), "SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name='kubelet_a'") == "1";
  }, 180s), "a did not come up on its data after its rollout: " << describe(dep_a));
  BOOST_TEST(kubelet->container_log(dep_a, "init-datadir").find("holds a server: nothing to do") != std::string::npos,
             kubelet->container_log(dep_a, "init-datadir"));
  // The operator's move of -primary: relabel, and the rules follow.
  set_role(dep_b, "replica");
  set_role(dep_a, "primary");
  BOOST_TEST(eventually([&] { return scalar(primary, "SELECT @@server_id") == "101"; }, 30s),
             "-primary did not follow the label to a");
}

BOOST_AUTO_TEST_SUITE_END()
