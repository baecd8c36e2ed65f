// `bloodraven trigger-backup` (see trigger_backup.hpp).
#include "actors/operator/kube/backup/trigger_backup.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "actors/operator/kube/backup/backup_controller.hpp"
#include "actors/operator/kube/backup/backup_decide.hpp"
#include "config/process_flags.hpp"
#include "io/kube/config.hpp"

namespace br::backup_ctl {

nlohmann::json trigger_object(const trigger_request& r, std::int64_t unix_seconds) {
  std::string name =
      r.name.empty() ? generated_backup_name(r.group + "-" + r.profile, unix_seconds) : r.name;
  nlohmann::json spec = {{"failoverGroupRef", {{"name", r.group}}},
                         {"profileName", r.profile},
                         {"triggeredBy", r.triggered_by}};
  if (!r.source_site.empty()) spec["sourceSiteOverride"] = r.source_site;
  return {{"apiVersion", "shipstream.io/v1alpha1"},
          {"kind", "MysqlBackup"},
          {"metadata",
           {{"name", name},
            {"namespace", r.ns},
            {"labels", {{"shipstream.io/failover-group", r.group}}},
            {"finalizers", nlohmann::json::array({std::string{finalizer}})}}},
          {"spec", spec}};
}

std::string trigger_backup(kube::client& c, const trigger_request& r, std::string& created) {
  auto now = std::chrono::duration_cast<std::chrono::seconds>(
                 std::chrono::system_clock::now().time_since_epoch())
                 .count();
  auto obj = trigger_object(r, now);
  auto res = c.create(resources::mysqlbackups, r.ns, obj);
  if (!res) return res.error().describe();
  created = obj["metadata"]["name"];
  return {};
}

int run_trigger(int argc, char** argv, const trigger_command& cmd) {
  const std::string who = "bloodraven " + cmd.command;
  std::vector<config::flag_def> defs = {
      {"namespace", "POD_NAMESPACE", "default", "namespace of the group and the new " + cmd.kind, false, {}},
      {"group", "", "", "the MysqlFailoverGroup (required)", false, {}},
      {"profile", "", "", "spec.backup.profiles[].name (required)", false, {}},
      {"triggered-by", "", "manual", "spec.triggeredBy (CronJobs pass schedule/<name>)", false, {}},
      {"name", "", "", "the " + cmd.kind + "'s name (default <group>-<profile>-<UTC yyyymmddhhmmss>)", false, {}},
      {"kubeconfig", "BLOODRAVEN_KUBECONFIG", "",
       "kubeconfig file (empty: in-cluster, else $KUBECONFIG or ~/.kube/config)", false, {}},
      {"timeout", "", "10s", "deadline of the API call", false,
       config::check_duration_within(std::chrono::seconds(1), std::chrono::minutes(5))},
  };
  defs.insert(defs.end(), cmd.extra.begin(), cmd.extra.end());
  std::vector<const char*> args = {who.c_str()};
  for (int i = 2; i < argc; ++i) args.push_back(argv[i]);
  auto f = config::parse_flags(defs, static_cast<int>(args.size()), args.data(),
                               [](const char* n) { return std::getenv(n); });
  switch (f.what) {
    case config::parsed_flags::action::help:
      std::fputs(config::usage(who, cmd.summary, defs).c_str(), stdout);
      return 0;
    case config::parsed_flags::action::run:
      break;
    default:
      std::fprintf(stderr, "%s: %s\n", who.c_str(), f.error.empty() ? "unexpected --version" : f.error.c_str());
      return 2;
  }
  if (f.values["group"].empty() || f.values["profile"].empty()) {
    std::fprintf(stderr, "%s: --group and --profile are required\n", who.c_str());
    return 2;
  }
  auto cfg = f.values["kubeconfig"].empty() ? kube::default_config()
                                            : kube::load_kubeconfig(f.values["kubeconfig"]);
  if (!cfg) {
    std::fprintf(stderr, "%s: no Kubernetes API configuration: %s\n", who.c_str(), cfg.error().describe().c_str());
    return 2;
  }
  kube::client_options co;
  co.timeout = std::chrono::duration_cast<std::chrono::milliseconds>(config::to_duration(f.values["timeout"]));
  kube::client c{*cfg, co};
  auto now = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  auto obj = cmd.object(f.values, now);
  auto res = c.create(cmd.resource, f.values["namespace"], obj);
  if (!res) {
    std::fprintf(stderr, "%s: creating the %s failed: %s\n", who.c_str(), cmd.kind.c_str(),
                 res.error().describe().c_str());
    return 1;
  }
  std::printf("%s.shipstream.io/%s created (group %s, profile %s, triggeredBy %s)\n", cmd.resource.plural.substr(0, cmd.resource.plural.size() - 1).c_str(),
              obj["metadata"]["name"].get<std::string>().c_str(), f.values["group"].c_str(),
              f.values["profile"].c_str(), f.values["triggered-by"].c_str());
  return 0;
}

int run_trigger_backup(int argc, char** argv) {
  trigger_command cmd;
  cmd.command = "trigger-backup";
  cmd.summary = "Creates a MysqlBackup for a group's backup profile (what each backup CronJob runs).";
  cmd.kind = "MysqlBackup";
  cmd.resource = resources::mysqlbackups;
  cmd.extra = {{"source-site", "", "", "spec.sourceSiteOverride (default: the controller's choice)", false, {}}};
  cmd.object = [](std::map<std::string, std::string>& v, std::int64_t now) {
    trigger_request r{v["namespace"], v["group"], v["profile"], v["triggered-by"], v["name"], v["source-site"]};
    return trigger_object(r, now);
  };
  return run_trigger(argc, argv, cmd);
}

}  // namespace br::backup_ctl
