// `bloodraven trigger-verification`: creates one MysqlBackupVerification (what each verification
// CronJob runs; also by hand, optionally naming the backup with --backup).
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

namespace br::verify_ctl {

/// Pure: the MysqlBackupVerification for the flag values (namespace, group, profile,
/// triggered-by, name, backup) at `unix_seconds`.
nlohmann::json verification_object(std::map<std::string, std::string>& values, std::int64_t unix_seconds);

/// argv[1] == "trigger-verification". Exit code 0 when the object was created.
int run_trigger_verification(int argc, char** argv);

}  // namespace br::verify_ctl
