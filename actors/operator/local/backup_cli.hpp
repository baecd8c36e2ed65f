// `bloodraven backup run|delete|list` and `bloodraven restore` (issue 21, contract 4): the
// standalone tool and what the Kubernetes backup/restore Jobs run. Storage from
// BLOODRAVEN_BACKUP_* (backups) and BLOODRAVEN_PITR_* (the binlog archive); MySQL credentials as
// files `username`/`password` in --creds-dir. run and restore end with one stdout line
// BLOODRAVEN_{BACKUP,RESTORE}_{COMPLETE,FAILED} <json> (also written to --result-file, <= 4 KiB).
#pragma once

namespace br {

/// argv[1] is "backup" or "restore". Exit code 0 on success, 1 on failure, 2 on bad usage.
int run_backup_cli(int argc, char** argv);

}  // namespace br
