// The Kubernetes integration suites' shared setup (see cluster.hpp).
#include "tests/support/kube_sim/harness/cluster.hpp"

#include <yaml-cpp/yaml.h>

#include <cstdlib>

#include "actors/common/supervisor.hpp"
#include "io/codec/base64.hpp"
#include "tests/support/kube_sim/chart_rbac.hpp"
#include "tests/support/kube_sim/test_support.hpp"

namespace br::kube_sim::test {

using nlohmann::json;
using namespace std::chrono_literals;

std::string source_path(const std::string& rel) {
  const char* src = std::getenv("BR_SOURCE_DIR");
  return std::string{src ? src : "."} + "/" + rel;
}

sim_cluster::sim_cluster(bool chart_rbac) {
  if (chart_rbac) sim.set_rbac(chart_operator_rbac(source_path("charts/bloodraven"), {operator_identity}));
  sim.start();
}

sim_cluster::~sim_cluster() { sim.stop(); }

std::shared_ptr<kube::client> sim_cluster::client(const std::string& identity,
                                                  std::chrono::milliseconds timeout) const {
  kube::client_options co;
  co.timeout = timeout;
  co.identity = identity;
  return std::make_shared<kube::client>(sim_config(sim), co);
}

std::string sim_cluster::create(const kube::resource_ref& r, const std::string& ns, const json& obj) const {
  auto made = client("test")->create(r, ns, obj);
  if (made.ok()) return "";
  return "create " + obj["metadata"].value("name", std::string{}) + ": " + made.error().describe();
}

std::string sim_cluster::install_crds(bool dns_endpoint) const {
  auto err = create(kube::resources::crds, "",
                    yaml_to_json(YAML::LoadFile(
                        source_path("charts/bloodraven/crds/shipstream.io_mysqlfailovergroups.yaml"))));
  if (err.empty() && dns_endpoint) err = create(kube::resources::crds, "", dns_endpoint_crd());
  return err;
}

std::string sim_cluster::create_operator_secret(const std::string& ns, const std::string& name,
                                                const std::string& user,
                                                const std::string& password) const {
  return create(kube::resources::secrets, ns,
                {{"apiVersion", "v1"},
                 {"kind", "Secret"},
                 {"metadata", {{"name", name}, {"namespace", ns}}},
                 {"data", {{"username", base64_encode(user)}, {"password", base64_encode(password)}}}});
}

std::string sim_cluster::denials() const {
  std::string out;
  for (const auto& d : sim.denials())
    out += (out.empty() ? "" : "\n") + d.method + " " + d.path + ": " + d.message;
  return out;
}

group_source_options fast_group_source(std::shared_ptr<kube::client> operator_client, site_io_actor io) {
  group_source_options o;
  o.client = std::move(operator_client);
  o.site_io = std::move(io);
  o.instance = operator_identity;
  o.status_backoff_initial = 100ms;
  o.status_backoff_max = 400ms;
  o.status_coalesce = 50ms;
  o.reflector.backoff_initial = 50ms;
  o.reflector.backoff_max = 500ms;
  o.reconcile_interval = 300ms;
  o.reconcile_busy_interval = 300ms;
  o.restart_delay = 500ms;
  return o;
}

void operator_actors::spawn(caf::actor_system& sys, bool with_site_io) {
  registry = spawn_registry(sys);
  if (with_site_io) io = spawn_site_io(sys);
}

void operator_actors::start(caf::actor_system& sys, const group_source_options& o) {
  root = spawn_supervisor(sys, "root", restart_policy{}, {group_source_child(o)});
}

void operator_actors::stop(caf::scoped_actor& self, std::chrono::seconds timeout) {
  if (root) self->request(root, timeout, stop_atom::value).receive([](bool) {}, [](caf::error&) {});
  if (io) self->send_exit(io, caf::exit_reason::user_shutdown);
  if (registry) self->send_exit(registry, caf::exit_reason::user_shutdown);
}

}  // namespace br::kube_sim::test
