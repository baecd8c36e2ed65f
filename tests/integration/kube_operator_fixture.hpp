// The part every Kubernetes-mode integration fixture shares: the API simulator under the chart's
// RBAC (the operator's identity may do only what the chart grants; checked at teardown: no
// denials), a kubeconfig for real kubectl, the test's own client, a SIMULATED kubelet
// (tests/integration/kubelet_sim.hpp), an actor system and the in-process operator's actors. At
// teardown the operator and the kubelet stop first, then the sandbox instances the test owns are
// stopped with the given subcommands in order (e.g. {"stop"}, or {"gr-stop", "stop", "gr-off"}).
#pragma once

#include <boost/test/unit_test.hpp>

#include <caf/all.hpp>

#include <memory>
#include <string>
#include <vector>

#include "io/log/log.hpp"
#include "tests/integration/kubelet_sim.hpp"
#include "tests/support/kube_sim/harness/cluster.hpp"
#include "tests/support/kube_sim/test_support.hpp"
#include "tests/support/mysql_sandbox.hpp"

namespace br::test {

struct kube_operator_fixture {
  const std::string fixture_ns;
  const std::vector<int> owned_instances;
  const std::vector<std::string> teardown;

  br::kube_sim::test::sim_cluster cluster;
  br::kube_sim::test::temp_dir dir;
  std::string kubeconfig = cluster.sim.write_kubeconfig(dir.path.string());
  std::shared_ptr<kube::client> c = cluster.client("test");
  std::unique_ptr<kubelet_sim> kubelet =
      std::make_unique<kubelet_sim>(cluster.client("kubelet-sim"), fixture_ns);
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};
  br::kube_sim::test::operator_actors op;

  kube_operator_fixture(std::string ns, std::vector<int> instances,
                        std::vector<std::string> teardown_steps = {"stop"})
      : fixture_ns(std::move(ns)),
        owned_instances(std::move(instances)),
        teardown(std::move(teardown_steps)) {
    log::set_level(log::level::warn);
    op.spawn(sys);
  }

  ~kube_operator_fixture() {
    op.stop(self);
    kubelet->stop();
    auto denied = cluster.denials();
    BOOST_TEST(denied.empty(), "operator requests refused by the chart's RBAC:\n" << denied);
    static const mysql_sandbox sb;
    for (const auto& step : teardown)
      for (int i : owned_instances) {
        auto r = sb.run({step, std::to_string(i)});
        if (r.exit_code != 0) BOOST_TEST_MESSAGE(step << " " << i << ": " << r.err);
      }
  }

  kube_operator_fixture(const kube_operator_fixture&) = delete;
  kube_operator_fixture& operator=(const kube_operator_fixture&) = delete;
};

}  // namespace br::test
