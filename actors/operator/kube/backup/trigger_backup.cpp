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

int run_trigger_backup(int argc, char** argv) {
  std::vector<config::flag_def> defs = {
      {"namespace", "POD_NAMESPACE", "default", "namespace of the group and the new MysqlBackup", false, {}},
      {"group", "", "", "the MysqlFailoverGroup (required)", false, {}},
      {"profile", "", "", "spec.backup.profiles[].name to back up to (required)", false, {}},
      {"triggered-by", "", "manual", "spec.triggeredBy (CronJobs pass schedule/<name>)", false, {}},
      {"name", "", "", "the MysqlBackup's name (default <group>-<profile>-<UTC yyyymmddhhmmss>)", false, {}},
      {"source-site", "", "", "spec.sourceSiteOverride (default: the controller's choice)", false, {}},
      {"kubeconfig", "BLOODRAVEN_KUBECONFIG", "",
       "kubeconfig file (empty: in-cluster, else $KUBECONFIG or ~/.kube/config)", false, {}},
      {"timeout", "", "10s", "deadline of the API call", false,
       config::check_duration_within(std::chrono::seconds(1), std::chrono::minutes(5))},
  };
  std::vector<const char*> args = {"bloodraven trigger-backup"};
  for (int i = 2; i < argc; ++i) args.push_back(argv[i]);
  auto f = config::parse_flags(defs, static_cast<int>(args.size()), args.data(),
                               [](const char* n) { return std::getenv(n); });
  switch (f.what) {
    case config::parsed_flags::action::help:
      std::fputs(config::usage("bloodraven trigger-backup",
                               "Creates a MysqlBackup for a group's backup profile (what each backup "
                               "CronJob runs).",
                               defs)
                     .c_str(),
                 stdout);
      return 0;
    case config::parsed_flags::action::run:
      break;
    default:
      std::fprintf(stderr, "bloodraven trigger-backup: %s\n",
                   f.error.empty() ? "unexpected --version" : f.error.c_str());
      return 2;
  }
  trigger_request r{f.values["namespace"], f.values["group"], f.values["profile"],
                    f.values["triggered-by"], f.values["name"], f.values["source-site"]};
  if (r.group.empty() || r.profile.empty()) {
    std::fprintf(stderr, "bloodraven trigger-backup: --group and --profile are required\n");
    return 2;
  }
  auto cfg = f.values["kubeconfig"].empty() ? kube::default_config()
                                            : kube::load_kubeconfig(f.values["kubeconfig"]);
  if (!cfg) {
    std::fprintf(stderr, "bloodraven trigger-backup: no Kubernetes API configuration: %s\n",
                 cfg.error().describe().c_str());
    return 2;
  }
  kube::client_options co;
  co.timeout = std::chrono::duration_cast<std::chrono::milliseconds>(
      config::to_duration(f.values["timeout"]));
  kube::client c{*cfg, co};
  std::string created;
  if (auto err = trigger_backup(c, r, created); !err.empty()) {
    std::fprintf(stderr, "bloodraven trigger-backup: creating the MysqlBackup failed: %s\n",
                 err.c_str());
    return 1;
  }
  std::printf("mysqlbackup.shipstream.io/%s created (group %s, profile %s, triggeredBy %s)\n",
              created.c_str(), r.group.c_str(), r.profile.c_str(), r.triggered_by.c_str());
  return 0;
}

}  // namespace br::backup_ctl
