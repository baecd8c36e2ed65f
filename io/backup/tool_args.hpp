// The command lines of the MySQL client tools the backup and restore jobs run (pure): mysqldump
// for a backup, mysql for a load or a binlog replay. With spec.tls each carries
// --ssl-mode=VERIFY_IDENTITY and --ssl-ca (client_tls_args, issue 26).
#pragma once

#include <string>
#include <vector>

#include "io/backup/jobs.hpp"

namespace br::backup {

/// mysqldump of `schemas` from `source`: credentials from `option_file`, TCP, one consistent
/// snapshot with its GTIDs and binlog position. `tool_ca`: the CA as the tool sees it ("" = none).
std::vector<std::string> dump_args(const mysql_target& source, const std::string& option_file,
                                   const std::string& tool_ca, const std::vector<std::string>& schemas);

/// mysql loading SQL (a dump, or mysqlbinlog's output) into `target`.
std::vector<std::string> load_args(const mysql_target& target, const std::string& option_file,
                                   const std::string& tool_ca);

}  // namespace br::backup
