// `bloodraven trigger-verification` (see trigger_verification.hpp).
#include "actors/operator/kube/verify/trigger_verification.hpp"

#include "actors/operator/kube/backup/backup_decide.hpp"
#include "actors/operator/kube/backup/trigger_backup.hpp"
#include "actors/operator/kube/verify/verify_controller.hpp"

namespace br::verify_ctl {

nlohmann::json verification_object(std::map<std::string, std::string>& v, std::int64_t unix_seconds) {
  // The Job's name adds 12 characters ("mysqlverify-"): the generated name stays within 51.
  std::string name = v["name"].empty()
                         ? backup_ctl::generated_backup_name(v["group"] + "-" + v["profile"], unix_seconds)
                         : v["name"];
  nlohmann::json spec = {{"failoverGroupRef", {{"name", v["group"]}}},
                         {"profileName", v["profile"]},
                         {"triggeredBy", v["triggered-by"]}};
  if (!v["backup"].empty()) spec["backupRef"] = {{"name", v["backup"]}};
  return {{"apiVersion", "shipstream.io/v1alpha1"},
          {"kind", "MysqlBackupVerification"},
          {"metadata", {{"name", name}, {"namespace", v["namespace"]}, {"labels", {{"shipstream.io/failover-group", v["group"]}}}}},
          {"spec", spec}};
}

int run_trigger_verification(int argc, char** argv) {
  backup_ctl::trigger_command cmd;
  cmd.command = "trigger-verification";
  cmd.summary =
      "Creates a MysqlBackupVerification for a group's backup profile (what each verification CronJob runs): the "
      "operator restores the backup into a throwaway server and checks it.";
  cmd.kind = "MysqlBackupVerification";
  cmd.resource = resources::mysqlbackupverifications;
  cmd.extra = {{"backup", "", "", "spec.backupRef.name (default: the newest Succeeded backup of the profile)", false, {}}};
  cmd.object = verification_object;
  return backup_ctl::run_trigger(argc, argv, cmd);
}

}  // namespace br::verify_ctl
