// Prints the objects the operator renders for a group file as a JSON array, so the chart test
// can validate them against the Kubernetes schemas. Usage: br_render_dump GROUP.yaml
#include <fstream>
#include <iostream>
#include <sstream>

#include "config/failover_group.hpp"
#include "config/render/group_objects.hpp"
#include "config/render/traffic.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: br_render_dump GROUP.yaml\n";
    return 2;
  }
  std::ifstream in{argv[1]};
  std::stringstream text;
  text << in.rdbuf();
  auto loaded = br::config::load_group_yaml(text.str(), br::config::run_mode::kubernetes);
  if (!in || !loaded.ok()) {
    std::cerr << argv[1] << ": " << br::config::to_string(loaded.errors) << "\n";
    return 1;
  }
  auto& g = loaded.group;
  if (g.metadata.uid.empty()) g.metadata.uid = "00000000-0000-0000-0000-000000000000";
  br::render::render_options opts;
  auto r = br::render::render_group(g, opts);
  if (!r.ok()) {
    std::cerr << "render: " << br::config::to_string(r.errors) << "\n";
    return 1;
  }
  nlohmann::json out = r.objects;
  for (const auto& s : g.spec.sites)
    if (auto ep = br::render::render_dns_endpoint(g, s.name, opts)) {
      out.push_back(*ep);
      break;
    }
  std::cout << out.dump(2) << "\n";
  return 0;
}
