// `bloodraven backup run|delete|list|verify` and `bloodraven restore` (issue 21, contract 4): the
// standalone tool and what the Kubernetes backup/restore Jobs run. Storage from
// BLOODRAVEN_BACKUP_* (backups) and BLOODRAVEN_PITR_* (the binlog archive); MySQL credentials as
// files `username`/`password` in --creds-dir. run, restore and verify end with one stdout line
// BLOODRAVEN_{BACKUP,RESTORE,VERIFY}_{COMPLETE,FAILED} <json> (also written to --result-file,
// <= 4 KiB). verify restores into a throwaway mysqld it starts itself (io/backup/verify.hpp).
#pragma once

namespace br {

/// argv[1] is "backup" or "restore". Exit code 0 on success, 1 on failure, 2 on bad usage.
int run_backup_cli(int argc, char** argv);

}  // namespace br
